import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { QueryCommand } from '@aws-sdk/lib-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import { batchLengths, draftEventBytes, eventEnvelope, storedEventBytes } from '../../../lib/platform/events/batches.ts';
import { newEventId } from '../../../lib/platform/events/event-id.ts';
import type { EventEnvelope, EventType } from '../../../lib/platform/events/types.ts';
import { documentClient } from '../../../lib/platform/aws/dynamodb-client.ts';
import { eventBatchItems, eventsOfImage, eventsOfItem, findEvent, readEventsFrom } from '../../../lib/platform/dynamo/event-batches.ts';
import { committedEventsOf } from '../../../lib/webhooks/store/webhook-stream.ts';

/**
 * Event batches (docs/events.md "How events are stored"): one item per transaction's events,
 * split by size; legacy one-event items read as batches of one; reads from any position over an
 * in-memory events partition that answers Queries as DynamoDB does (Limit counts items, a page
 * also stops at a byte size and then says where to go on).
 */

const ORG = 'org_batches';
const TABLE = 'events';
const COMMITTED = new Date('2026-06-30T10:00:00.000Z');

function envelope(sequence: number, type: EventType = 'item.created', data: Record<string, unknown> = { n: sequence, text: 'é✓' }): EventEnvelope {
  return eventEnvelope({ type, data }, ORG, newEventId(sequence), COMMITTED.toISOString());
}

/** A legacy (schema 2) item, as the writer stored one event before batches. */
function legacyItem(event: EventEnvelope, sequence: number): Record<string, unknown> {
  return {
    pk: `ORG#${ORG}#EVT`,
    sk: `SEQ#${String(sequence).padStart(12, '0')}`,
    entity: 'event',
    schemaVersion: 2,
    sequence,
    committedAt: COMMITTED.toISOString(),
    ttl: 1,
    type: event.type,
    envelopeJson: JSON.stringify(event),
  };
}

/** An item as a stream image carries it: DynamoDB's marshalled attribute values (the types these items use). */
function marshall(item: Record<string, unknown>): Record<string, unknown> {
  const value = (attribute: unknown): unknown => {
    if (typeof attribute === 'string') return { S: attribute };
    if (typeof attribute === 'number') return { N: String(attribute) };
    if (Array.isArray(attribute)) return { L: attribute.map(value) };
    throw new Error(`not marshalled here: ${typeof attribute}`);
  };
  return Object.fromEntries(Object.entries(item).map(([name, attribute]) => [name, value(attribute)]));
}

/** An events partition answering the Queries of lib/platform/dynamo/event-batches.ts. */
class MemoryPartition {
  items: Array<Record<string, unknown>> = [];
  readonly queries: Array<{ limit: number | undefined; returned: number }> = [];

  constructor(private readonly pageBytes = 1_000_000) {}

  add(...items: Array<Record<string, unknown>>): void {
    this.items.push(...items);
    this.items.sort((a, b) => String(a.sk).localeCompare(String(b.sk)));
  }

  query(input: QueryCommand['input']): { Items: Array<Record<string, unknown>>; LastEvaluatedKey?: Record<string, unknown> } {
    const values = input.ExpressionAttributeValues as Record<string, string>;
    const after = input.ExclusiveStartKey?.sk as string | undefined;
    const candidates = this.items.filter(
      (item) =>
        item.pk === values[':pk'] &&
        String(item.sk) >= (values[':from'] ?? '') &&
        String(item.sk) <= (values[':to'] ?? '') &&
        (after === undefined || String(item.sk) > after),
    );
    const page: Array<Record<string, unknown>> = [];
    let bytes = 0;
    for (const item of candidates) {
      if (input.Limit !== undefined && page.length >= input.Limit) break;
      if (page.length > 0 && bytes + JSON.stringify(item).length > this.pageBytes) break;
      page.push(item);
      bytes += JSON.stringify(item).length;
    }
    this.queries.push({ limit: input.Limit, returned: page.length });
    // As DynamoDB: a page stopped by its Limit or its size says where it stopped, even at the end.
    const stopped = page.length > 0 && (page.length === input.Limit || page.length < candidates.length);
    return { Items: page, ...(stopped ? { LastEvaluatedKey: { pk: page.at(-1)?.pk, sk: page.at(-1)?.sk } } : {}) };
  }
}

let partition: MemoryPartition;
function usePartition(pageBytes?: number): MemoryPartition {
  partition = new MemoryPartition(pageBytes);
  return partition;
}

beforeEach(() => {
  usePartition();
  // The only request these reads send is a Query; the fake answers it from `partition`.
  vi.spyOn(documentClient, 'send').mockImplementation((async (command: QueryCommand) => partition.query(command.input)) as never);
});
afterEach(() => vi.restoreAllMocks());

describe('encoding event batches', () => {
  it("stores a transaction's events as one item keyed by its last sequence, envelopes byte for byte", () => {
    // Prepare
    const events = [envelope(5, 'item.created'), envelope(6, 'stock.changed'), envelope(7, 'low-stock')];

    // Act
    const items = eventBatchItems(events, 5, COMMITTED);

    // Assess
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      pk: `ORG#${ORG}#EVT`,
      sk: 'SEQ#000000000007',
      entity: 'event',
      schemaVersion: 3,
      first: 5,
      last: 7,
      committedAt: COMMITTED.toISOString(),
      types: ['item.created', 'stock.changed', 'low-stock'],
    });
    expect(items[0]?.envelopes).toEqual(events.map((event) => JSON.stringify(event)));
    expect(eventsOfItem(items[0] ?? {})).toEqual(
      events.map((event, index) => ({ sequence: 5 + index, type: event.type, committedAt: COMMITTED.toISOString(), envelopeJson: JSON.stringify(event) })),
    );
  });

  it('splits into consecutive items when the events would exceed the size, each within it', () => {
    // Prepare
    const events = Array.from({ length: 10 }, (_, index) => envelope(index + 1, 'item.created', { blob: 'x'.repeat(1000) }));
    const size = storedEventBytes(JSON.stringify(events[0]), 'item.created');

    // Act
    const items = eventBatchItems(events, 1, COMMITTED, size * 3);

    // Assess
    expect(items.map((item) => [item.first, item.last, item.sk])).toEqual([
      [1, 3, 'SEQ#000000000003'],
      [4, 6, 'SEQ#000000000006'],
      [7, 9, 'SEQ#000000000009'],
      [10, 10, 'SEQ#000000000010'],
    ]);
    expect(items.flatMap((item) => eventsOfItem(item).map((event) => event.envelopeJson))).toEqual(events.map((event) => JSON.stringify(event)));
  });

  it('groups greedily; an event larger than the size alone is an item of its own', () => {
    expect(batchLengths([4, 4, 4, 20, 1, 1], 10)).toEqual([2, 1, 1, 2]);
    expect(batchLengths([], 10)).toEqual([]);
  });

  it("counts a draft's stored size exactly, before the writer gives it an id and a commit time", () => {
    // Prepare
    const draft = { type: 'item.created' as const, data: { item: { name: 'Ünïcode ✓' } } };

    // Act
    const counted = draftEventBytes(draft, ORG);

    // Assess
    const stored = eventEnvelope(draft, ORG, newEventId(123_456), COMMITTED.toISOString());
    expect(counted).toBe(storedEventBytes(JSON.stringify(stored), draft.type));
  });

  it('reads a legacy single-event item as a batch of one', () => {
    const event = envelope(9);
    expect(eventsOfItem(legacyItem(event, 9))).toEqual([
      { sequence: 9, type: 'item.created', committedAt: COMMITTED.toISOString(), envelopeJson: JSON.stringify(event) },
    ]);
  });

  it('expands a stream image of a batch into its events in order, and still reads a legacy image', () => {
    // Prepare
    const envelopes = [envelope(2), envelope(3), envelope(4, 'stock.changed')];
    const legacy = legacyItem(envelopes[0] as EventEnvelope, 2);
    const batch = eventBatchItems(envelopes.slice(1), 3, COMMITTED)[0] ?? {};
    const record = (item: Record<string, unknown>): DynamoDBRecord => ({ eventName: 'INSERT', dynamodb: { NewImage: marshall(item) as never } });
    const counter: DynamoDBRecord = { eventName: 'MODIFY', dynamodb: { NewImage: marshall({ entity: 'event-sequence', last: 4 }) as never } };

    // Act
    const events = committedEventsOf([record(legacy), record(batch), counter]);

    // Assess
    expect(events.map((event) => [event.sequence, event.type, event.organizationId])).toEqual([
      [2, 'item.created', ORG],
      [3, 'item.created', ORG],
      [4, 'stock.changed', ORG],
    ]);
    expect(events.map((event) => event.eventId)).toEqual(envelopes.map((event) => event.id));
    expect(eventsOfImage(marshall({ entity: 'event-sequence', last: 4 }) as never)).toBeUndefined();
  });
});

describe('reading event batches', () => {
  /** Batches of the given sizes, numbered from 1. */
  function seedBatches(sizes: number[], data?: (sequence: number) => Record<string, unknown>): EventEnvelope[] {
    const all: EventEnvelope[] = [];
    for (const size of sizes) {
      const first = all.length + 1;
      const events = Array.from({ length: size }, (_, index) => envelope(first + index, 'item.created', data?.(first + index)));
      partition.add(...eventBatchItems(events, first, COMMITTED));
      all.push(...events);
    }
    return all;
  }
  const sequencesOf = (events: Array<{ sequence: number }>) => events.map((event) => event.sequence);

  it('starts mid-batch: the batch holding the position comes first, its earlier events dropped', async () => {
    // Prepare
    seedBatches([3, 4, 2]);

    // Act
    const events = await readEventsFrom(TABLE, ORG, 5, 100);

    // Assess
    expect(sequencesOf(events)).toEqual([5, 6, 7, 8, 9]);
    expect(partition.queries).toEqual([{ limit: 100, returned: 2 }]);
  });

  it('slices to maxItems, counting events, not items', async () => {
    // Prepare
    const all = seedBatches([5, 5, 5]);

    // Act
    const events = await readEventsFrom(TABLE, ORG, 2, 6);

    // Assess
    expect(sequencesOf(events)).toEqual([2, 3, 4, 5, 6, 7]);
    expect(events.map((event) => event.envelopeJson)).toEqual(all.slice(1, 7).map((event) => JSON.stringify(event)));
  });

  it('follows LastEvaluatedKey past pages stopped by their size until it has maxItems events', async () => {
    // Prepare: pages of about one item each.
    usePartition(3_000);
    seedBatches([2, 2, 2, 2, 2], () => ({ blob: 'y'.repeat(1200) }));

    // Act
    const events = await readEventsFrom(TABLE, ORG, 1, 9);

    // Assess
    expect(sequencesOf(events)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(partition.queries.length).toBeGreaterThan(1);
  });

  it('reads legacy items and batches as one sequence', async () => {
    // Prepare
    const legacy = [envelope(1), envelope(2)];
    partition.add(legacyItem(legacy[0] as EventEnvelope, 1), legacyItem(legacy[1] as EventEnvelope, 2));
    partition.add(...eventBatchItems([envelope(3), envelope(4), envelope(5)], 3, COMMITTED), legacyItem(envelope(6), 6));

    // Act
    const events = await readEventsFrom(TABLE, ORG, 2, 100);

    // Assess
    expect(sequencesOf(events)).toEqual([2, 3, 4, 5, 6]);
  });

  it("ends at the partition's end, and reads nothing past the highest sequence", async () => {
    seedBatches([2]);
    expect(sequencesOf(await readEventsFrom(TABLE, ORG, 1, 10))).toEqual([1, 2]);
    expect(await readEventsFrom(TABLE, ORG, 3, 10)).toEqual([]);
    expect(await readEventsFrom(TABLE, ORG, 10 ** 12, 10)).toEqual([]);
  });

  it('finds an event inside a batch, at its ends, in a legacy item, and nothing where none is stored', async () => {
    // Prepare
    const all = seedBatches([4]);
    const legacy = envelope(7);
    partition.add(legacyItem(legacy, 7));

    // Act
    const found = await Promise.all([2, 1, 4, 7, 5, 8].map((sequence) => findEvent(TABLE, ORG, sequence)));

    // Assess
    expect(found.map((event) => event?.envelopeJson)).toEqual([
      JSON.stringify(all[1]),
      JSON.stringify(all[0]),
      JSON.stringify(all[3]),
      JSON.stringify(legacy),
      undefined,
      undefined,
    ]);
  });
});
