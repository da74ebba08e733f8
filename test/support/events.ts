import { schemaErrors } from './json-schema.ts';
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { BatchWriteCommand, DeleteCommand, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { EVENT_EXAMPLES, EVENT_TYPES, type EventType } from '../../lib/events/contracts/events.ts';
import type { AuditDraft, AuditKind } from '../../lib/platform/audit/types.ts';
import { newEventId } from '../../lib/platform/events/event-id.ts';
import { EventFeed, type FeedQuery } from '../../lib/events/domain/read-feed.ts';
import type { EventDraft, EventEnvelope } from '../../lib/platform/events/types.ts';
import { ulid } from '../../lib/platform/core/ids.ts';
import { CursorCodec } from '../../lib/platform/pagination/cursor.ts';
import type { WriteContext } from '../../lib/platform/write/ports.ts';
import { documentClient } from '../../lib/platform/aws/clients.ts';
import { eventBatchItems } from '../../lib/platform/dynamo/event-batches.ts';
import { EventsStore } from '../../lib/events/store/events-store.ts';
import { EVENT_RETENTION_DAYS } from '../../lib/platform/events/types.ts';
import { keys } from '../../lib/platform/dynamo/keys.ts';
import { TABLES, type TableId } from '../../lib/platform/storage/tables.ts';
import { TransactionWriter, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';

/**
 * Helpers for tests of the events feed and the audit log on the local stack: the real writer,
 * stores and cursor codec (configured by test/support/stack-env.ts), realistic event payloads,
 * and a fast seeder that writes events in exactly the writer's item layout (event batches), or
 * in the legacy one-item-per-event layout that a deployment still holds until it expires.
 */

export function tableName(id: TableId): string {
  const name = process.env[TABLES[id].envVar];
  if (!name) throw new Error(`${TABLES[id].envVar} is not set; is test/support/stack-env.ts a setup file?`);
  return name;
}

export const transactionWriter = () => new TransactionWriter({ events: tableName('events'), audit: tableName('audit') });
export const eventsStore = () => new EventsStore(tableName('events'));
export const cursorCodec = () => {
  const secret = process.env.CURSOR_SECRET;
  if (!secret) throw new Error('CURSOR_SECRET is not set by the local stack');
  return new CursorCodec(secret);
};
export const eventFeed = () => new EventFeed(eventsStore(), cursorCodec());

// ---------------------------------------------------------------------------------------------
// Payloads

/** A fresh opaque id with a type prefix, shaped like the ids of the catalog (`itm_<ulid>`). */
export const freshId = (prefix: string) => `${prefix}_${ulid()}`;

/** Realistic `data` of one event type: the published example with fresh ids. */
export function eventData(type: EventType): Record<string, unknown> {
  const itemId = freshId('itm');
  const locationId = freshId('loc');
  const stockRecordId = freshId('stk');
  const item = { ...EVENT_EXAMPLES['item.created'].data.item, id: itemId, sku: `SKU-${randomUUID().slice(0, 8)}` };
  switch (type) {
    case 'item.created':
      return { item };
    case 'item.updated': {
      const example = EVENT_EXAMPLES['item.updated'].data;
      return { ...example, item: { ...example.item, id: itemId, sku: item.sku } };
    }
    case 'stock.changed':
      return { ...EVENT_EXAMPLES['stock.changed'].data, stockRecordId, itemId, sku: item.sku, locationId, movementId: freshId('mov') };
    case 'movement.created': {
      const movement = EVENT_EXAMPLES['movement.created'].data.movement;
      return { movement: { ...movement, id: freshId('mov'), itemId, sku: item.sku, toLocationId: locationId } };
    }
    case 'po.received': {
      const example = EVENT_EXAMPLES['po.received'].data;
      return { ...example, receiptId: freshId('rcp'), lines: example.lines.map((line) => ({ ...line, itemId, locationId, stockRecordId })) };
    }
    case 'count.completed': {
      const example = EVENT_EXAMPLES['count.completed'].data;
      return { ...example, countId: freshId('cnt'), locationId, lines: example.lines.map((line) => ({ ...line, itemId })) };
    }
    case 'low-stock':
      return { ...EVENT_EXAMPLES['low-stock'].data, itemId, sku: item.sku };
    case 'export.completed': {
      const exportId = freshId('exp');
      return { ...EVENT_EXAMPLES['export.completed'].data, exportId, downloadUrl: `/v1/exports/${exportId}/download-url` };
    }
  }
}

export const eventDraft = (type: EventType, occurredAt?: string): EventDraft => ({ type, data: eventData(type), ...(occurredAt ? { occurredAt } : {}) });

/** Event types in a fixed rotation, so every type occurs. */
export const typeAt = (index: number): EventType => EVENT_TYPES[index % EVENT_TYPES.length] as EventType;

// ---------------------------------------------------------------------------------------------
// Writes through the real write path

/** A marker item of the inventory table; its condition fails when the same marker exists. */
export function markerWrite(organizationId: string, marker: string = randomUUID()): StoreWrite {
  return {
    item: {
      Put: {
        TableName: tableName('inventory'),
        Item: { pk: `ORG#${organizationId}#TEST`, sk: marker, entity: 'test-marker', schemaVersion: 1 },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    onConditionFailed: () => new MarkerExistsError(marker),
  };
}

export class MarkerExistsError extends Error {
  override name = 'MarkerExistsError';
  constructor(readonly marker: string) {
    super(`Marker ${marker} exists`);
  }
}

export function auditDraft(kind: AuditKind = 'bom.created', summary = `test ${kind}`): AuditDraft {
  return { kind, target: { kind: 'bom', id: freshId('bom') }, summary, changes: [{ field: 'name', from: null, to: summary }] };
}

export function writeContext(organizationId: string, options: { traceId?: string; idempotencyKey?: string } = {}): WriteContext {
  const context: WriteContext = { organizationId, actor: { type: 'api-key', id: freshId('key') }, traceId: options.traceId ?? `trace-${randomUUID()}` };
  // The writer reads only `key` of an idempotency claim unless it was given an idempotency store.
  if (options.idempotencyKey) context.idempotency = { key: options.idempotencyKey, claim: { organizationId, keyHash: 'unused', token: 'unused' } };
  return context;
}

/** Commits one plan (a marker write, the given events, an optional audit draft) with the real writer. */
export async function commit(
  organizationId: string,
  drafts: EventDraft[],
  options: { audit?: AuditDraft; writer?: TransactionWriter; marker?: string; context?: WriteContext } = {},
) {
  const writer = options.writer ?? transactionWriter();
  return writer.run(options.context ?? writeContext(organizationId), async () => ({
    writes: [markerWrite(organizationId, options.marker)],
    events: drafts,
    ...(options.audit ? { audit: options.audit } : {}),
    result: undefined,
  }));
}

// ---------------------------------------------------------------------------------------------
// Direct seeding (for feeds too long to write through the writer in a test)

const BATCH_SIZE = 25;

/**
 * A legacy event item (schema 2 of lib/platform/dynamo/entities.ts `eventBatchEntity`): one event per item,
 * as the writer stored events before batches; no longer written, still read until it expires.
 */
export function legacyEventItem(envelope: EventEnvelope, sequence: number, committedAt: Date): Record<string, unknown> {
  return {
    sequence,
    committedAt: committedAt.toISOString(),
    ttl: Math.floor(committedAt.getTime() / 1000) + EVENT_RETENTION_DAYS * 24 * 3600,
    type: envelope.type,
    envelopeJson: JSON.stringify(envelope),
    ...keys.event(envelope.organizationId, sequence),
    entity: 'event',
    schemaVersion: 2,
  };
}

async function batchWrite(table: string, items: Array<Record<string, unknown>>): Promise<void> {
  let pending: NonNullable<NonNullable<ConstructorParameters<typeof BatchWriteCommand>[0]['RequestItems']>[string]> = items.map((Item) => ({
    PutRequest: { Item },
  }));
  for (let attempt = 0; pending.length > 0; attempt += 1) {
    if (attempt > 20) throw new Error('BatchWrite kept returning unprocessed items');
    const result = await documentClient.send(new BatchWriteCommand({ RequestItems: { [table]: pending } }));
    pending = result.UnprocessedItems?.[table] ?? [];
    if (pending.length > 0) await new Promise((resolve) => setTimeout(resolve, 10 * 2 ** Math.min(attempt, 6)));
  }
}

/** Runs `tasks` with at most `concurrency` in flight. */
async function bounded<T>(count: number, concurrency: number, task: (index: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const index = next;
      next += 1;
      results[index] = await task(index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return results;
}

export interface SeededEvent {
  id: string;
  type: EventType;
  sequence: number;
}

/**
 * Writes events `from..to` (sequences) of an organization directly with BatchWriteItem in the
 * writer's layout, and sets the sequence counter to `to`. `typeOf(sequence)` picks each type.
 * Payloads are small but valid (one shared `data` per type). Each batch item holds `perBatch`
 * events (default 1, as a transaction of one event writes: `expireEvents` deletes by sequence),
 * or each is a legacy item with `layout: 'legacy'`.
 */
export async function seedEvents(
  organizationId: string,
  count: number,
  typeOf: (sequence: number) => EventType,
  options: { concurrency?: number; from?: number; committedAt?: Date; perBatch?: number; layout?: 'batches' | 'legacy' } = {},
): Promise<SeededEvent[]> {
  const table = tableName('events');
  const from = options.from ?? 1;
  const now = options.committedAt ?? new Date();
  const dataOf = new Map<EventType, Record<string, unknown>>(EVENT_TYPES.map((type) => [type, eventData(type)]));
  const seeded: SeededEvent[] = [];
  const envelopes: EventEnvelope[] = [];
  for (let sequence = from; sequence < from + count; sequence += 1) {
    const type = typeOf(sequence);
    const envelope: EventEnvelope = {
      id: newEventId(sequence),
      type,
      version: 1,
      occurredAt: now.toISOString(),
      organizationId,
      data: dataOf.get(type) ?? {},
    };
    seeded.push({ id: envelope.id, type, sequence });
    envelopes.push(envelope);
  }
  const perBatch = options.perBatch ?? 1;
  const items: Array<Record<string, unknown>> = [];
  for (let offset = 0; offset < envelopes.length; offset += perBatch) {
    const group = envelopes.slice(offset, offset + perBatch);
    if (options.layout === 'legacy') items.push(...group.map((envelope, index) => legacyEventItem(envelope, from + offset + index, now)));
    else items.push(...eventBatchItems(group, from + offset, now));
  }
  const batches = Math.ceil(items.length / BATCH_SIZE);
  await bounded(batches, options.concurrency ?? 8, (index) => batchWrite(table, items.slice(index * BATCH_SIZE, (index + 1) * BATCH_SIZE)));
  await documentClient.send(
    new PutCommand({
      TableName: table,
      Item: { ...keys.eventSequence(organizationId), last: from + count - 1, entity: 'event-sequence', schemaVersion: 1 },
    }),
  );
  return seeded;
}

/** Simulates TTL expiry: deletes the stored items keyed by these sequences (events seeded one per item). */
export async function expireEvents(organizationId: string, sequences: number[]): Promise<void> {
  const table = tableName('events');
  await Promise.all(sequences.map((sequence) => documentClient.send(new DeleteCommand({ TableName: table, Key: keys.event(organizationId, sequence) }))));
}

export async function sequenceCounter(organizationId: string): Promise<number | undefined> {
  const result = await documentClient.send(new GetCommand({ TableName: tableName('events'), Key: keys.eventSequence(organizationId), ConsistentRead: true }));
  return result.Item?.last as number | undefined;
}

// ---------------------------------------------------------------------------------------------
// Reading

/** Pages the feed from the start (or a cursor) to the tail; returns every event and the last cursor. */
export async function readToTail(
  feed: EventFeed,
  organizationId: string,
  query: Omit<FeedQuery, 'cursor' | 'afterEventId'> & { cursor?: string },
): Promise<{ events: EventEnvelope[]; cursor: string; pages: number }> {
  const events: EventEnvelope[] = [];
  let cursor = query.cursor;
  for (let pages = 1; ; pages += 1) {
    const page = await feed.read(organizationId, { ...query, ...(cursor === undefined ? {} : { cursor }) });
    events.push(...page.data);
    const advanced = page.page.nextCursor !== cursor;
    cursor = page.page.nextCursor;
    if (page.data.length === 0 && !advanced) return { events, cursor, pages };
  }
}

// ---------------------------------------------------------------------------------------------
// JSON Schema 2020-12 validation of served envelopes (events-schema/)

const SCHEMA_DIR = fileURLToPath(new URL('../../events-schema/', import.meta.url));

/** Validates envelopes against the committed JSON Schema of their type. */
export function envelopeSchemaValidator(): { version: string; errors(envelope: { type: string }): string[] } {
  const schemas = new Map<string, object>();
  for (const type of EVENT_TYPES) schemas.set(type, JSON.parse(readFileSync(`${SCHEMA_DIR}${type}.schema.json`, 'utf8')) as object);
  return {
    version: 'ajv 8 (draft 2020-12)',
    errors(envelope) {
      const schema = schemas.get(envelope.type);
      return schema ? schemaErrors(schema, envelope) : [`no schema for type ${envelope.type}`];
    },
  };
}
