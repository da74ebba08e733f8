import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { EventFeedStore, StoredEvent } from '../domain/events/read-feed.ts';
import { EVENT_RETENTION_DAYS, type EventEnvelope } from '../domain/events/types.ts';
import { documentClient } from './dynamodb-client.ts';
import { entityItem } from './entity.ts';
import { eventEntity, eventSequenceEntity } from './entities.ts';
import { keys, MAX_SEQUENCE } from './keys.ts';

/** Reads of the events table; all strongly consistent, so a committed event is seen at once. */


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

  async readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEvent[]> {
    const events: StoredEvent[] = [];
    if (fromSequence > MAX_SEQUENCE) return events;
    let exclusiveStartKey: Record<string, unknown> | undefined;
    // One Query unless the items exceed DynamoDB's 1 MB page.
    do {
      const page = await documentClient.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
          ExpressionAttributeValues: { ':pk': keys.eventsOf(organizationId), ':from': keys.eventSortKey(fromSequence), ':to': keys.eventSortKey(MAX_SEQUENCE) },
          ConsistentRead: true,
          Limit: maxItems - events.length,
          ExclusiveStartKey: exclusiveStartKey,
        }),
      );
      events.push(...(page.Items ?? []).map(toStoredEvent));
      exclusiveStartKey = page.LastEvaluatedKey;
    } while (exclusiveStartKey && events.length < maxItems);
    return events;
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
