import { randomBytes } from 'node:crypto';

/**
 * Opaque, unguessable ids with a type prefix (`bom_…`, `key_…`; docs/events.md "The envelope"):
 * a ULID, i.e. a 48-bit millisecond timestamp and 80 random bits in Crockford base32, so ids
 * also sort by creation.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

export function ulid(now: number = Date.now()): string {
  let time = now;
  let timePart = '';
  for (let i = 0; i < 10; i += 1) {
    timePart = CROCKFORD[time % 32] + timePart;
    time = Math.floor(time / 32);
  }
  let randomPart = '';
  for (const byte of randomBytes(16)) randomPart += CROCKFORD[byte % 32];
  return timePart + randomPart;
}

export type IdPrefix = 'key' | 'bom' | 'imp' | 'att' | 'evt' | 'aud' | 'itm' | 'loc' | 'stk' | 'mov' | 'bld' | 'rev' | 'lin' | 'rcp' | 'cnt' | 'exp' | 'whe' | 'wha' | 'whr';

export function newId(prefix: IdPrefix, now?: number): string {
  return `${prefix}_${ulid(now)}`;
}
