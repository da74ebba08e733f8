import { GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { batchLengths, EVENT_BATCH_BYTES, storedEventBytes } from '../events/batches.ts';
import { EVENT_RETENTION_DAYS, type EventEnvelope } from '../events/types.ts';
import { documentClient } from '../aws/dynamodb-client.ts';
import { entityItem } from './entity.ts';
import { eventBatchEntity, eventSequenceEntity } from './entities.ts';
import { keys, MAX_SEQUENCE } from './keys.ts';

/**
 * How events are stored (docs/events.md "How events are stored"): the events of one transaction
 * in one item, an "event batch" keyed by its LAST sequence, split only past EVENT_BATCH_BYTES.
 * Items written before batches hold one event each and are read as batches of one. This module
 * is the only one that encodes or decodes them: the feed (events-store.ts), the webhook flows
 * (webhook-queue.ts) and the stream dispatcher (webhook-stream.ts) all read through it.
 */

/** One event as stored: the envelope's text exactly as committed, served byte for byte. */
export interface StoredEventRecord {
  sequence: number;
  type: string;
  committedAt: string;
  envelopeJson: string;
}

/** The part of a marshalled attribute value an event item uses (a stream image's). */
interface MarshalledValue {
  S?: string;
  N?: string;
  L?: MarshalledValue[];
}

/**
 * The items of one transaction's events, numbered from `firstSequence`: as few as fit
 * EVENT_BATCH_BYTES each, in sequence order.
 */
export function eventBatchItems(
  envelopes: readonly EventEnvelope[],
  firstSequence: number,
  committedAt: Date,
  maxBytes: number = EVENT_BATCH_BYTES,
): Array<Record<string, unknown>> {
  const texts = envelopes.map((envelope) => JSON.stringify(envelope));
  const lengths = batchLengths(
    texts.map((text, index) => storedEventBytes(text, envelopes[index]?.type ?? '')),
    maxBytes,
  );
  const items: Array<Record<string, unknown>> = [];
  let offset = 0;
  for (const length of lengths) {
    const first = firstSequence + offset;
    const last = first + length - 1;
    items.push(
      entityItem(
        eventBatchEntity,
        { organizationId: envelopes[offset]?.organizationId ?? '', lastSequence: last },
        {
          first,
          last,
          committedAt: committedAt.toISOString(),
          ttl: Math.floor(committedAt.getTime() / 1000) + EVENT_RETENTION_DAYS * 24 * 3600,
          types: envelopes.slice(offset, offset + length).map((envelope) => envelope.type),
          envelopes: texts.slice(offset, offset + length),
        },
      ),
    );
    offset += length;
  }
  return items;
}

/** The events of a stored item, in order: a batch's, or a legacy item's one. */
export function eventsOfItem(item: Record<string, unknown>): StoredEventRecord[] {
  const committedAt = item.committedAt as string;
  if (Array.isArray(item.envelopes)) {
    const first = item.first as number;
    const types = item.types as string[];
    return (item.envelopes as string[]).map((envelopeJson, index) => ({ sequence: first + index, type: types[index] as string, committedAt, envelopeJson }));
  }
  return [{ sequence: item.sequence as number, type: item.type as string, committedAt, envelopeJson: item.envelopeJson as string }];
}

/**
 * The same for a stream record's marshalled new image (the stream carries DynamoDB's attribute
 * values, not the document client's): only the attributes `eventsOfItem` reads are unmarshalled.
 * Undefined when the image is not an event item (the sequence counter).
 */
export function eventsOfImage(image: Readonly<Record<string, MarshalledValue | undefined>>): StoredEventRecord[] | undefined {
  if (image.entity?.S !== eventBatchEntity.type) return undefined;
  const number = (value: MarshalledValue | undefined) => (value?.N === undefined ? undefined : Number(value.N));
  const strings = (value: MarshalledValue | undefined) => value?.L?.map((element) => element.S);
  return eventsOfItem({
    committedAt: image.committedAt?.S,
    first: number(image.first),
    types: strings(image.types),
    envelopes: strings(image.envelopes),
    sequence: number(image.sequence),
    type: image.type?.S,
    envelopeJson: image.envelopeJson?.S,
  });
}

/** One Query page (at most `limit` items, and at most 1 MB) of the organization's event items from a position. */
async function queryEventItems(tableName: string, organizationId: string, from: number, limit: number, exclusiveStartKey: Record<string, unknown> | undefined) {
  return documentClient.send(
    new QueryCommand({
      TableName: tableName,
      KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
      ExpressionAttributeValues: { ':pk': keys.eventsOf(organizationId), ':from': keys.eventSortKey(from), ':to': keys.eventSortKey(MAX_SEQUENCE) },
      ConsistentRead: true,
      Limit: limit,
      ExclusiveStartKey: exclusiveStartKey,
    }),
  );
}

/**
 * Up to `maxItems` events from `fromSequence` (inclusive) on, in sequence order, strongly
 * consistent. Batches are keyed by their last sequence, so the first item at or after the
 * position is the batch that holds it (its events before the position are dropped). `Limit`
 * counts items, each holding at least one wanted event; a page also stops at 1 MB, so pages are
 * followed while LastEvaluatedKey says there is more and events are still wanted.
 */
export async function readEventsFrom(tableName: string, organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEventRecord[]> {
  const events: StoredEventRecord[] = [];
  if (fromSequence > MAX_SEQUENCE || maxItems <= 0) return events;
  const from = Math.max(fromSequence, 0);
  let exclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const page = await queryEventItems(tableName, organizationId, from, maxItems - events.length, exclusiveStartKey);
    for (const item of page.Items ?? []) events.push(...eventsOfItem(item).filter((event) => event.sequence >= from));
    exclusiveStartKey = page.LastEvaluatedKey;
  } while (exclusiveStartKey && events.length < maxItems);
  return events.slice(0, maxItems);
}

/**
 * One DynamoDB page of events from `fromSequence` on: at most `maxEvents`, and fewer when the
 * Query stopped at 1 MB (a few large events fill it). `more` says whether the store may hold
 * events after the last one returned, so a reader pages by position, never by the page's length
 * (docs/webhooks.md "Replaying").
 */
export async function readEventPage(
  tableName: string,
  organizationId: string,
  fromSequence: number,
  maxEvents: number,
): Promise<{ events: StoredEventRecord[]; more: boolean }> {
  if (fromSequence > MAX_SEQUENCE || maxEvents <= 0) return { events: [], more: false };
  const from = Math.max(fromSequence, 0);
  const page = await queryEventItems(tableName, organizationId, from, maxEvents, undefined);
  const events = (page.Items ?? []).flatMap((item) => eventsOfItem(item).filter((event) => event.sequence >= from));
  return { events: events.slice(0, maxEvents), more: page.LastEvaluatedKey !== undefined || events.length > maxEvents };
}

/** One event: the first item at or after its position is the batch that would hold it. */
export async function findEvent(tableName: string, organizationId: string, sequence: number): Promise<StoredEventRecord | undefined> {
  if (sequence < 0 || sequence > MAX_SEQUENCE) return undefined;
  const { Items = [] } = await queryEventItems(tableName, organizationId, sequence, 1, undefined);
  return Items[0] ? eventsOfItem(Items[0]).find((event) => event.sequence === sequence) : undefined;
}

/** Every event of the batch that holds `sequence` (the same one read as `findEvent`); none when that event is not stored. */
export async function findEventBatch(tableName: string, organizationId: string, sequence: number): Promise<StoredEventRecord[]> {
  if (sequence < 0 || sequence > MAX_SEQUENCE) return [];
  const { Items = [] } = await queryEventItems(tableName, organizationId, sequence, 1, undefined);
  const events = Items[0] ? eventsOfItem(Items[0]) : [];
  return events.some((event) => event.sequence === sequence) ? events : [];
}

/** The organization's sequence counter: every event up to it has committed. */
export async function readLastSequence(tableName: string, organizationId: string): Promise<number> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName, Key: eventSequenceEntity.key({ organizationId }), ConsistentRead: true }));
  return typeof Item?.last === 'number' ? Item.last : 0;
}
