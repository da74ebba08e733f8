import { CROCKFORD_BASE32, decodeBase32, encodeBase32, randomBase32 } from '../core/base32.ts';

/**
 * Event ids carry their position in the organization's sequence, then 80 random bits:
 * `evt_<10 base32 chars of sequence><16 random base32 chars>`. Clients treat them as opaque;
 * the feed uses the position to resume after an `afterEventId` with one strongly consistent
 * read, and the random part (checked against the stored event) makes them unguessable.
 */
const SEQUENCE_CHARS = 10;
const RANDOM_CHARS = 16;
const EVENT_ID_PATTERN = new RegExp(`^evt_([${CROCKFORD_BASE32}]{${SEQUENCE_CHARS}})[${CROCKFORD_BASE32}]{${RANDOM_CHARS}}$`);

export function newEventId(sequence: number): string {
  return `evt_${encodeBase32(sequence, SEQUENCE_CHARS)}${randomBase32(RANDOM_CHARS)}`;
}

/** The sequence number an event id claims, or undefined when it is not an event id at all. */
export function sequenceOfEventId(eventId: string): number | undefined {
  const encoded = EVENT_ID_PATTERN.exec(eventId)?.[1];
  if (!encoded) return undefined;
  const sequence = decodeBase32(encoded);
  return sequence !== undefined && sequence >= 1 ? sequence : undefined;
}
