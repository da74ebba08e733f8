import { randomBytes } from 'node:crypto';

/**
 * Event ids carry their position in the organization's sequence, then 80 random bits:
 * `evt_<10 base32 chars of sequence><16 random base32 chars>`. Clients treat them as opaque;
 * the feed uses the position to resume after an `afterEventId` with one strongly consistent
 * read, and the random part (checked against the stored event) makes them unguessable.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const SEQUENCE_CHARS = 10;
const RANDOM_CHARS = 16;
const EVENT_ID_PATTERN = new RegExp(`^evt_([${CROCKFORD}]{${SEQUENCE_CHARS}})[${CROCKFORD}]{${RANDOM_CHARS}}$`);

export function newEventId(sequence: number): string {
  let rest = sequence;
  let encoded = '';
  for (let i = 0; i < SEQUENCE_CHARS; i += 1) {
    encoded = CROCKFORD[rest % 32] + encoded;
    rest = Math.floor(rest / 32);
  }
  let random = '';
  for (const byte of randomBytes(RANDOM_CHARS)) random += CROCKFORD[byte % 32];
  return `evt_${encoded}${random}`;
}

/** The sequence number an event id claims, or undefined when it is not an event id at all. */
export function sequenceOfEventId(eventId: string): number | undefined {
  const encoded = EVENT_ID_PATTERN.exec(eventId)?.[1];
  if (!encoded) return undefined;
  let sequence = 0;
  for (const char of encoded) sequence = sequence * 32 + CROCKFORD.indexOf(char);
  return sequence >= 1 ? sequence : undefined;
}
