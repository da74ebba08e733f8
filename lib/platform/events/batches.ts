import { utf8Bytes } from '../write/json-bytes.ts';
import { EVENT_VERSION, type EventDraft, type EventEnvelope } from './types.ts';

/**
 * The events of one transaction are stored together, as one "event batch" item, split into
 * several only when one would be too large (docs/events.md "How events are stored"). The split is
 * a fact both the store (which writes the items) and the import planner (which counts a chunk's
 * storage actions before it commits) need, so it lives here, pure.
 */

/**
 * The most a batch's events may weigh (envelope text and type names, see `storedEventBytes`):
 * DynamoDB's item limit is 400 KB; the rest is the margin for the batch's own attributes.
 */
export const EVENT_BATCH_BYTES = 350_000;

/** What one event adds to its batch item: its envelope text, its type, a list element's overhead each. */
export function storedEventBytes(envelopeJson: string, type: string): number {
  return utf8Bytes(envelopeJson) + utf8Bytes(type) + 2;
}

/**
 * Consecutive groups of `sizes` (in order), each as large as fits `maxBytes`; an event larger than
 * that alone is a group of its own. Returns the groups' lengths. Smaller sizes never make more
 * groups, so counting with upper bounds of the sizes bounds the real count.
 */
export function batchLengths(sizes: readonly number[], maxBytes: number = EVENT_BATCH_BYTES): number[] {
  const lengths: number[] = [];
  let bytes = 0;
  for (const size of sizes) {
    const last = lengths.length - 1;
    if (last >= 0 && bytes + size <= maxBytes) {
      lengths[last] = (lengths[last] ?? 0) + 1;
      bytes += size;
    } else {
      lengths.push(1);
      bytes = size;
    }
  }
  return lengths;
}

/** The envelope the writer stores for a draft (fields in this order: the stored text keeps it). */
export function eventEnvelope(draft: EventDraft, organizationId: string, id: string, committedAt: string): EventEnvelope {
  return { id, type: draft.type, version: EVENT_VERSION, occurredAt: draft.occurredAt ?? committedAt, organizationId, data: draft.data };
}

/** A stand-in event id of the real ids' length (`evt_` and 26 characters, lib/platform/events/event-id.ts). */
const ID_STAND_IN = `evt_${'0'.repeat(26)}`;
/** A stand-in commit time of `toISOString()`'s length. */
const TIME_STAND_IN = new Date(0).toISOString();

/**
 * What a draft's event will add to its batch once the writer gives it an id and a commit time:
 * exact, since both have a fixed length.
 */
export function draftEventBytes(draft: EventDraft, organizationId: string): number {
  return storedEventBytes(JSON.stringify(eventEnvelope(draft, organizationId, ID_STAND_IN, TIME_STAND_IN)), draft.type);
}
