import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EventType } from '../contracts/events.ts';
import type { EventFeedStore, FeedSlice, StoredEvent } from '../domain/events/read-feed.ts';
import { EVENT_RETENTION_DAYS, type EventEnvelope } from '../domain/events/types.ts';
import { documentClient } from './dynamodb-client.ts';
import { entityItem } from './entity.ts';
import { eventEntity, eventSequenceEntity } from './entities.ts';
import { keys } from './keys.ts';

/** Reads of the events table; all strongly consistent, so a committed event is seen at once. */

const READ_BATCH = 200;

/**
 * The stored form of an event. The envelope is kept as JSON text, so it is served byte for byte
 * as committed (field order included); `type` is a separate attribute for filtering.
 */
export function eventItem(event: EventEnvelope, sequence: number, committedAt: Date): Record<string, unknown> {
  return entityItem(eventEntity, { organizationId: event.organizationId, sequence }, {
    sequence,
    committedAt: committedAt.toISOString(),
    ttl: Math.floor(committedAt.getTime() / 1000) + EVENT_RETENTION_DAYS * 24 * 3600,
    type: event.type,
    envelopeJson: JSON.stringify(event),
  });
}

function toStoredEvent(item: Record<string, unknown>): StoredEvent {
  return { sequence: item.sequence as number, committedAt: item.committedAt as string, envelope: JSON.parse(item.envelopeJson as string) as EventEnvelope };
}

export class EventsStore implements EventFeedStore {
  constructor(private readonly tableName: string) {}

  async readAfter(organizationId: string, afterSequence: number, options: { limit: number; type?: EventType; budget: number }): Promise<FeedSlice> {
    const slice: FeedSlice = { events: [], itemsRead: 0 };
    // Read the counter first: a GetItem is serializable with transactions, so every event up to
    // it is fully committed. A Query alone is only read-committed and could see part of a
    // committing transaction (N+2 without N+1); bounding it by the counter rules that out.
    const committed = await this.lastSequence(organizationId);
    let position = afterSequence;
    while (slice.events.length < options.limit && slice.itemsRead < options.budget && position < committed) {
      // Without a filter every item read is returned, so read exactly what is missing.
      const want = options.type ? Math.min(READ_BATCH, options.budget - slice.itemsRead) : options.limit - slice.events.length;
      const page = await documentClient.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': keys.eventsOf(organizationId), ':from': keys.eventSortKey(position + 1), ':to': keys.eventSortKey(committed) },
          ConsistentRead: true,
          Limit: want,
        }),
      );
      const items = (page.Items ?? []).map(toStoredEvent);
      for (const event of items) {
        slice.itemsRead += 1;
        slice.firstExamined ??= event.sequence;
        slice.lastExamined = event.sequence;
        position = event.sequence;
        if (!options.type || event.envelope.type === options.type) slice.events.push(event);
        // Stop exactly at the limit so the cursor can point at the last returned event.
        if (slice.events.length >= options.limit) return slice;
      }
      if (items.length < want && !page.LastEvaluatedKey) break;
    }
    return slice;
  }

  async find(organizationId: string, sequence: number): Promise<StoredEvent | undefined> {
    const result = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: eventEntity.key({ organizationId, sequence }), ConsistentRead: true }),
    );
    return result.Item ? toStoredEvent(result.Item) : undefined;
  }

  async lastSequence(organizationId: string): Promise<number> {
    const result = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: eventSequenceEntity.key({ organizationId }), ConsistentRead: true }),
    );
    return typeof result.Item?.last === 'number' ? result.Item.last : 0;
  }
}
