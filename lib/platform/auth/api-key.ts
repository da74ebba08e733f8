import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import type { Scope } from './scopes.ts';

/**
 * API key format (docs/api-guide.md "Authentication and scopes"):
 * `ik_<env>_<random ≥32 base62><6-char checksum>`. The checksum is CRC-32 of everything before
 * it, in base62, so a mistyped or truncated key is refused without a storage read. Only SHA-256
 * of the whole key is ever stored.
 */

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const RANDOM_LENGTH = 40;
const CHECKSUM_LENGTH = 6;
const KEY_PATTERN = /^ik_([a-z0-9]{1,16})_([0-9A-Za-z]{38,64})$/;
export const KEY_ENVIRONMENT_PATTERN = /^[a-z0-9]{1,16}$/;

function toBase62(value: number, width: number): string {
  let rest = value;
  let out = '';
  while (out.length < width) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksumOf(prefixAndRandom: string): string {
  return toBase62(crc32(prefixAndRandom) >>> 0, CHECKSUM_LENGTH);
}

function randomBase62(length: number): string {
  // Rejection sampling keeps every character uniformly likely (256 is not a multiple of 62).
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export function generateApiKey(environment: string): string {
  if (!KEY_ENVIRONMENT_PATTERN.test(environment)) throw new Error(`Invalid key environment '${environment}'`);
  const body = `ik_${environment}_${randomBase62(RANDOM_LENGTH)}`;
  return body + checksumOf(body);
}

/** True when the key has the right shape and checksum; says nothing about whether it exists. */
export function isWellFormedApiKey(key: string): boolean {
  const match = KEY_PATTERN.exec(key);
  if (!match) return false;
  const tail = match[2] ?? '';
  const body = key.slice(0, key.length - CHECKSUM_LENGTH);
  return tail.length - CHECKSUM_LENGTH >= 32 && checksumOf(body) === key.slice(-CHECKSUM_LENGTH);
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

export interface ApiKeyRecord {
  keyId: string;
  keyHash: string;
  organizationId: string;
  name: string;
  scopes: Scope[];
  createdAt: string;
  revokedAt: string | null;
  expiresAt: string | null;
}

/** The authenticated caller, as handlers see it. */
export interface Principal {
  keyId: string;
  organizationId: string;
  scopes: readonly Scope[];
}

export function isKeyUsable(record: ApiKeyRecord, now: Date): boolean {
  if (record.revokedAt !== null) return false;
  return record.expiresAt === null || Date.parse(record.expiresAt) > now.getTime();
}
