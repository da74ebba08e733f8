import type { EventFeedStore, StoredEvent } from '../domain/read-feed.ts';
import type { EventEnvelope } from '../../platform/events/types.ts';
import { findEvent, readEventsFrom, readLastSequence, type StoredEventRecord } from '../../platform/dynamo/event-batches.ts';

/**
 * Reads of the events table for the feed and the export worker; all strongly consistent, so a
 * committed event is seen at once. The stored form is event batches (lib/platform/dynamo/event-batches.ts).
 */

function toStoredEvent(event: StoredEventRecord): StoredEvent {
  return { sequence: event.sequence, committedAt: event.committedAt, envelope: JSON.parse(event.envelopeJson) as EventEnvelope };
}

export class EventsStore implements EventFeedStore {
  constructor(private readonly tableName: string) {}

  async readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEvent[]> {
    return (await readEventsFrom(this.tableName, organizationId, fromSequence, maxItems)).map(toStoredEvent);
  }

  async find(organizationId: string, sequence: number): Promise<StoredEvent | undefined> {
    const event = await findEvent(this.tableName, organizationId, sequence);
    return event && toStoredEvent(event);
  }

  lastSequence(organizationId: string): Promise<number> {
    return readLastSequence(this.tableName, organizationId);
  }
}
