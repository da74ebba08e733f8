import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/platform/core/errors.ts';
import { newEventId } from '../../../lib/platform/events/event-id.ts';
import { EventFeed, type EventFeedStore, type StoredEvent } from '../../../lib/events/domain/read-feed.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';

/**
 * The feed's reading rules over an in-memory store that counts its calls: one Query per page on
 * the normal path, and the slower, serializable checks only around holes.
 */

const NOW = new Date('2026-06-30T00:00:00.000Z');
const RECENT = '2026-06-29T00:00:00.000Z';
const EXPIRED = '2026-01-01T00:00:00.000Z';
const ORG = 'org_feed';

function storedEvent(sequence: number, committedAt = RECENT, type: 'item.created' | 'stock.changed' = 'item.created'): StoredEvent {
  const id = newEventId(sequence);
  return { sequence, committedAt, envelope: { id, type, version: 1, occurredAt: committedAt, organizationId: ORG, data: {} } as StoredEvent['envelope'] };
}

class MemoryStore implements EventFeedStore {
  /** What a Query sees: may lack an event that `committed` already holds (one still committing). */
  visible: StoredEvent[] = [];
  committed: StoredEvent[] = [];
  readonly calls: string[] = [];

  constructor(events: StoredEvent[]) {
    this.visible = [...events];
    this.committed = [...events];
  }

  async readFrom(_organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEvent[]> {
    this.calls.push(`query ${fromSequence}+${maxItems}`);
    return this.visible.filter((event) => event.sequence >= fromSequence).slice(0, maxItems);
  }

  async find(_organizationId: string, sequence: number): Promise<StoredEvent | undefined> {
    this.calls.push(`get ${sequence}`);
    return this.committed.find((event) => event.sequence === sequence);
  }

  async lastSequence(): Promise<number> {
    this.calls.push('get counter');
    return this.committed.at(-1)?.sequence ?? 0;
  }
}

const codec = new CursorCodec('c'.repeat(32));
const cursorAt = (sequence: number, type?: 'item.created') => codec.encode(sequence, { organizationId: ORG, endpoint: 'GET /v1/events', filters: { type } });
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, index) => from + index);
const sequencesOf = (page: { data: { id: string }[] }, store: MemoryStore) =>
  page.data.map((envelope) => store.committed.find((event) => event.envelope.id === envelope.id)?.sequence);

function feedOver(events: StoredEvent[]) {
  const store = new MemoryStore(events);
  return { store, feed: new EventFeed(store, codec, () => NOW) };
}

async function problemOf(promise: Promise<unknown>): Promise<string | undefined> {
  return promise.then(
    () => undefined,
    (error: unknown) => (error instanceof ApiError ? error.code : String(error)),
  );
}

describe('EventFeed reads', () => {
  it('serves a page from the start with one Query', async () => {
    const { store, feed } = feedOver(range(1, 10).map((sequence) => storedEvent(sequence)));
    const page = await feed.read(ORG, { limit: 4 });
    expect(sequencesOf(page, store)).toEqual([1, 2, 3, 4]);
    expect(store.calls).toEqual(['query 1+4']);
  });

  it('serves a page after a cursor with one Query that includes the cursor event', async () => {
    const { store, feed } = feedOver(range(1, 10).map((sequence) => storedEvent(sequence)));
    const page = await feed.read(ORG, { limit: 4, cursor: cursorAt(4) });
    expect(sequencesOf(page, store)).toEqual([5, 6, 7, 8]);
    expect(page.page.nextCursor).toBe(cursorAt(8));
    expect(store.calls).toEqual(['query 4+5']);
  });

  it('answers an empty page at the tail with one Query, keeping the cursor', async () => {
    const { store, feed } = feedOver(range(1, 3).map((sequence) => storedEvent(sequence)));
    const page = await feed.read(ORG, { limit: 4, cursor: cursorAt(3) });
    expect(page.data).toEqual([]);
    expect(page.page.nextCursor).toBe(cursorAt(3));
    expect(store.calls).toEqual(['query 3+5']);
  });

  it('resumes after an afterEventId checkpoint with one Query that verifies it', async () => {
    const events = range(1, 6).map((sequence) => storedEvent(sequence));
    const { store, feed } = feedOver(events);
    const page = await feed.read(ORG, { limit: 10, afterEventId: events[1]?.envelope.id });
    expect(sequencesOf(page, store)).toEqual([3, 4, 5, 6]);
    expect(store.calls).toEqual(['query 2+11']);
  });

  it('refuses an afterEventId whose random part does not match the stored event', async () => {
    const { feed } = feedOver(range(1, 6).map((sequence) => storedEvent(sequence)));
    expect(await problemOf(feed.read(ORG, { limit: 10, afterEventId: newEventId(2) }))).toBe('customer-api.events.unknown-checkpoint');
  });

  it('stops a page before a hole in the middle (an event still committing) and serves it on the next poll', async () => {
    // Prepare: 6 has committed (the counter says so) but the Query does not see it yet.
    const events = range(1, 9).map((sequence) => storedEvent(sequence));
    const { store, feed } = feedOver(events);
    store.visible = events.filter((event) => event.sequence !== 6);
    // Act
    const first = await feed.read(ORG, { limit: 10, cursor: cursorAt(2) });
    store.visible = events;
    const next = await feed.read(ORG, { limit: 10, cursor: first.page.nextCursor });
    // Assess
    expect(sequencesOf(first, store)).toEqual([3, 4, 5]);
    expect(sequencesOf(next, store)).toEqual([6, 7, 8, 9]);
  });

  it('checks a hole right after the cursor with serializable reads instead of calling the cursor expired', async () => {
    // Prepare
    const events = range(1, 6).map((sequence) => storedEvent(sequence));
    const { store, feed } = feedOver(events);
    let queries = 0;
    const readFrom = store.readFrom.bind(store);
    store.readFrom = async (...args) => {
      queries += 1;
      // The first Query misses 4, still committing; by the second it has landed.
      return (await readFrom(...args)).filter((event) => queries > 1 || event.sequence !== 4);
    };
    // Act
    const page = await feed.read(ORG, { limit: 10, cursor: cursorAt(3) });
    // Assess
    expect(sequencesOf(page, store)).toEqual([4, 5, 6]);
    expect(store.calls).toEqual(['query 3+11', 'get counter', 'get 4', 'query 4+10']);
  });

  it('reads the event after the cursor again when its batch is not visible yet though the counter shows it committed, instead of calling the cursor expired', async () => {
    // Prepare: 4's batch lands only after the counter (a Query is read-committed only)
    const events = range(1, 6).map((sequence) => storedEvent(sequence));
    const { store, feed } = feedOver(events);
    let finds = 0;
    const find = store.find.bind(store);
    store.find = async (organizationId, sequence) => {
      finds += 1;
      return finds === 1 ? undefined : find(organizationId, sequence);
    };
    let queries = 0;
    const readFrom = store.readFrom.bind(store);
    store.readFrom = async (...args) => {
      queries += 1;
      return (await readFrom(...args)).filter((event) => queries > 1 || event.sequence !== 4);
    };
    // Act
    const page = await feed.read(ORG, { limit: 10, cursor: cursorAt(3) });
    // Assess
    expect(sequencesOf(page, store)).toEqual([4, 5, 6]);
    expect(store.calls).toEqual(['query 3+11', 'get counter', 'get 4', 'query 4+10']);
    expect(finds).toBe(2);
  });

  it.each([
    ['expired but not yet deleted', (events: StoredEvent[]) => events],
    ['expired and deleted', (events: StoredEvent[]) => events.filter((event) => event.sequence > 6)],
  ])('answers cursor-expired when the events right after the cursor are %s', async (_label, keep) => {
    const events = range(1, 10).map((sequence) => storedEvent(sequence, sequence <= 6 ? EXPIRED : RECENT));
    const { store, feed } = feedOver(events);
    store.visible = keep(events);
    store.committed = keep(events);
    expect(await problemOf(feed.read(ORG, { limit: 3, cursor: cursorAt(3) }))).toBe('customer-api.events.cursor-expired');
  });

  it('keeps a cursor valid when only its own event expired', async () => {
    const events = range(1, 6).map((sequence) => storedEvent(sequence, sequence <= 3 ? EXPIRED : RECENT));
    const { store, feed } = feedOver(events);
    const page = await feed.read(ORG, { limit: 10, cursor: cursorAt(3) });
    expect(sequencesOf(page, store)).toEqual([4, 5, 6]);
  });

  it('starts a reader without a position at the oldest retained event', async () => {
    const events = range(1, 20).map((sequence) => storedEvent(sequence, sequence <= 12 ? EXPIRED : RECENT));
    const { store, feed } = feedOver(events);
    const page = await feed.read(ORG, { limit: 3 });
    expect(sequencesOf(page, store)).toEqual([13, 14, 15]);
  });

  it('examines at most the filtered budget and moves the cursor past what it examined', async () => {
    const events = range(1, 1500).map((sequence) => storedEvent(sequence, RECENT, sequence === 1200 ? 'item.created' : 'stock.changed'));
    const { store, feed } = feedOver(events);
    const first = await feed.read(ORG, { limit: 5, type: 'item.created' });
    const next = await feed.read(ORG, { limit: 5, type: 'item.created', cursor: first.page.nextCursor });
    expect(first.data).toEqual([]);
    expect(first.itemsRead).toBe(1000);
    expect(first.page.nextCursor).toBe(cursorAt(1000, 'item.created'));
    expect(sequencesOf(next, store)).toEqual([1200]);
    expect(store.calls).toEqual(['query 1+1000', 'query 1000+1001']);
  });
});
