import { decodeBase32, encodeBase32, randomBase32 } from './base32.ts';

/**
 * Opaque, unguessable ids with a type prefix (`bom_…`, `key_…`; docs/events.md "The envelope"):
 * a ULID, i.e. a 48-bit millisecond timestamp and 80 random bits in Crockford base32, so ids
 * also sort by creation.
 */
const TIME_CHARACTERS = 10;

/** The latest time a ULID holds (48 bits of milliseconds: the year 10889). */
export const MAX_ULID_TIME = 2 ** 48 - 1;

export function ulid(now: number = Date.now()): string {
  // A time outside 0..2^48-1 would give a malformed id, not a late or early one.
  if (!Number.isInteger(now) || now < 0 || now > MAX_ULID_TIME) throw new RangeError(`A ULID holds a time from 0 to ${MAX_ULID_TIME} ms, not ${now}`);
  return encodeBase32(now, TIME_CHARACTERS) + randomBase32(16);
}

export type IdPrefix =
  | 'key'
  | 'bom'
  | 'imp'
  | 'att'
  | 'evt'
  | 'aud'
  | 'itm'
  | 'loc'
  | 'stk'
  | 'mov'
  | 'bld'
  | 'rev'
  | 'lin'
  | 'rcp'
  | 'cnt'
  | 'exp'
  | 'whe'
  | 'wha'
  | 'whr'
  | 'chg'
  | 'res'
  | 'rsl';

export function newId(prefix: IdPrefix, now?: number): string {
  return `${prefix}_${ulid(now)}`;
}

/**
 * The time (epoch milliseconds) of an id made by `newId(prefix, …)`; undefined when the id has
 * another prefix or is not a ULID of this service (ids come from clients too).
 */
export function idTime(prefix: IdPrefix, id: string): number | undefined {
  if (!id.startsWith(`${prefix}_`) || id.length !== prefix.length + 27) return undefined;
  const time = decodeBase32(id.slice(prefix.length + 1, prefix.length + 1 + TIME_CHARACTERS));
  return time !== undefined && time <= MAX_ULID_TIME ? time : undefined;
}
