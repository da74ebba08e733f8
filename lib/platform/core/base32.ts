import { randomBytes } from 'node:crypto';

/** Crockford's base32 alphabet (no I, L, O, U): what ULIDs and event ids are written in. */
export const CROCKFORD_BASE32 = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** `value` (a non-negative integer) in exactly `characters` base32 digits, most significant first. */
export function encodeBase32(value: number, characters: number): string {
  let rest = value;
  let encoded = '';
  for (let i = 0; i < characters; i += 1) {
    encoded = CROCKFORD_BASE32[rest % 32] + encoded;
    rest = Math.floor(rest / 32);
  }
  return encoded;
}

/** The integer `encoded` spells, or undefined when a character is not of the alphabet. */
export function decodeBase32(encoded: string): number | undefined {
  let value = 0;
  for (const character of encoded) {
    const digit = CROCKFORD_BASE32.indexOf(character);
    if (digit < 0) return undefined;
    value = value * 32 + digit;
  }
  return value;
}

/** `characters` random base32 digits (5 random bits each). */
export function randomBase32(characters: number): string {
  let random = '';
  for (const byte of randomBytes(characters)) random += CROCKFORD_BASE32[byte % 32];
  return random;
}
