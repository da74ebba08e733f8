import { describe, expect, it } from 'vitest';
import type { EventType } from '../../lib/events/contracts/events.ts';
import { sequenceOfEventId } from '../../lib/platform/events/event-id.ts';
import { EventFeed, FILTERED_PAGE_BUDGET, type FeedQuery } from '../../lib/events/domain/read-feed.ts';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import { AuditStore } from '../../lib/audit/store/audit-store.ts';
import { EventsStore } from '../../lib/events/store/events-store.ts';
import { uniqueOrganization } from '../support/api.ts';
import {
  auditDraft,
  commit,
  cursorCodec,
  eventDraft,
  eventFeed,
  MarkerExistsError,
  readToTail,
  seedEvents,
  sequenceCounter,
  tableName,
  typeAt,
  type SeededEvent,
} from '../support/events.ts';

/**
 * The events feed on the local stack (docs/events.md "Reading the feed", rule 1): one gapless
 * sequence per organization, in commit order, under concurrent writers; nothing of an aborted
 * transaction; bounded page cost.
 */

const randomInt = (min: number, max: number) => min + Math.floor(Math.random() * (max - min + 1));
const ids = (events: Array<{ id: string }>) => events.map((event) => event.id);
const sequenceOf = (id: string) => {
  const sequence = sequenceOfEventId(id);
  if (sequence === undefined) throw new Error(`${id} is not an event id`);
  return sequence;
};

describe('EventFeed under concurrent writers', () => {
  it('serves every committed event exactly once, gapless and in sequence order, to concurrent plain and filtered consumers', { timeout: 90_000 }, async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const feed = eventFeed();
    const WRITERS = 4;
    const COMMITS_PER_WRITER = 20;
    const filterType: EventType = 'stock.changed';
    let writing = true;

    /** Pages with a random limit until the writers are done and a page brings nothing new. */
    const consume = async (type?: EventType) => {
      const seen: EventEnvelope[] = [];
      let cursor: string | undefined;
      let pages = 0;
      for (;;) {
        const doneBefore = !writing;
        const query: FeedQuery = { limit: randomInt(1, 200), ...(type ? { type } : {}), ...(cursor ? { cursor } : {}) };
        const page = await feed.read(organizationId, query);
        pages += 1;
        expect(typeof page.page.nextCursor).toBe('string');
        seen.push(...page.data);
        const caughtUp = page.data.length === 0 && page.page.nextCursor === cursor;
        cursor = page.page.nextCursor;
        if (caughtUp && doneBefore) return { seen, pages };
        if (page.data.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };

    // Act
    const plainConsumer = consume();
    const filteredConsumer = consume(filterType);
    const writers = Array.from({ length: WRITERS }, async (_, writer) => {
      const committed: EventEnvelope[] = [];
      for (let index = 0; index < COMMITS_PER_WRITER; index += 1) {
        const drafts = Array.from({ length: randomInt(1, 3) }, (_, position) => eventDraft(typeAt(writer + index + position * 3)));
        const result = await commit(organizationId, drafts);
        committed.push(...result.events);
      }
      return committed;
    });
    const committed = (await Promise.all(writers)).flat();
    writing = false;
    const [plain, filtered] = await Promise.all([plainConsumer, filteredConsumer]);
    const second = await readToTail(feed, organizationId, { limit: 200 });

    // Assess
    const inSequenceOrder = [...committed].sort((a, b) => sequenceOf(a.id) - sequenceOf(b.id));
    const total = committed.length;
    expect(total).toBeGreaterThanOrEqual(WRITERS * COMMITS_PER_WRITER);
    // Gapless 1..N: the writer numbered the committed events exactly once each.
    expect(inSequenceOrder.map((event) => sequenceOf(event.id))).toEqual(Array.from({ length: total }, (_, index) => index + 1));
    expect(await sequenceCounter(organizationId)).toBe(total);
    // The concurrent consumer saw each committed event once, in sequence order.
    expect(ids(plain.seen)).toEqual(ids(inSequenceOrder));
    expect(plain.seen).toEqual(inSequenceOrder);
    expect(new Set(ids(plain.seen)).size).toBe(total);
    // The order is stable: a second read from the start gives the identical list.
    expect(ids(second.events)).toEqual(ids(plain.seen));
    // The filtered consumer saw exactly the committed events of its type, in the same relative order.
    expect(ids(filtered.seen)).toEqual(ids(inSequenceOrder.filter((event) => event.type === filterType)));
    expect(filtered.seen.length).toBeGreaterThan(0);
    // The consumers really ran while the writers wrote (more than one page each).
    expect(plain.pages).toBeGreaterThan(1);
  });
});

describe('EventFeed at the tail while a writer commits', () => {
  /** A real store that lets a writer commit right after the page's query, before the feed's checks. */
  class CommitAfterQuery extends EventsStore {
    constructor(private readonly onQueried: () => Promise<void>) {
      super(tableName('events'));
    }

    override async readFrom(...args: Parameters<EventsStore['readFrom']>) {
      const events = await super.readFrom(...args);
      await this.onQueried();
      return events;
    }
  }

  it.each([
    ['unfiltered', undefined],
    ['filtered', 'item.created' as const],
  ])('%s: a commit that lands between the query and the expiry check is served on the next poll, not reported as cursor-expired', async (_label, type) => {
    // Prepare
    const organizationId = uniqueOrganization();
    const first = await commit(organizationId, [eventDraft('item.created'), eventDraft('item.created')]);
    const tail = await eventFeed().read(organizationId, { limit: 200, ...(type ? { type } : {}) });
    let late: EventEnvelope[] = [];
    const racing = new EventFeed(
      new CommitAfterQuery(async () => {
        if (late.length === 0) late = (await commit(organizationId, [eventDraft('item.created')])).events;
      }),
      cursorCodec(),
    );

    // Act
    const polled = await racing.read(organizationId, { limit: 200, cursor: tail.page.nextCursor, ...(type ? { type } : {}) });
    const next = await eventFeed().read(organizationId, { limit: 200, cursor: polled.page.nextCursor, ...(type ? { type } : {}) });

    // Assess
    expect(ids(tail.data)).toEqual(ids(first.events));
    expect(polled.data).toEqual([]);
    expect(ids(next.data)).toEqual(ids(late));
  });
});

describe('TransactionWriter with a failing condition', () => {
  it.each([
    ['an organization with earlier events', 3],
    ['an organization without any event yet', 0],
  ])('commits nothing of the aborted transaction on %s: no event, no audit, counter unchanged', async (_label, earlierEvents) => {
    // Prepare
    const organizationId = uniqueOrganization();
    const feed = eventFeed();
    const audit = new AuditStore(tableName('audit'));
    const marker = `marker-${organizationId}`;
    const earlier = await commit(
      organizationId,
      Array.from({ length: earlierEvents }, (_, index) => eventDraft(typeAt(index))),
      { marker, audit: auditDraft('bom.created') },
    );
    const counterBefore = await sequenceCounter(organizationId);

    // Act
    const aborted = commit(organizationId, [eventDraft('item.created'), eventDraft('stock.changed'), eventDraft('low-stock')], {
      marker,
      audit: auditDraft('bom.updated'),
    });

    // Assess
    await expect(aborted).rejects.toBeInstanceOf(MarkerExistsError);
    expect(await sequenceCounter(organizationId)).toBe(counterBefore);
    expect(counterBefore).toBe(earlierEvents === 0 ? undefined : earlierEvents);
    const { events } = await readToTail(feed, organizationId, { limit: 200 });
    expect(ids(events)).toEqual(ids(earlier.events));
    const filtered = await readToTail(feed, organizationId, { limit: 200, type: 'low-stock' });
    expect(filtered.events).toEqual([]);
    const auditPage = await audit.list(organizationId, { limit: 200 });
    expect(auditPage.events.map((event) => event.kind)).toEqual(['bom.created']);
    expect(auditPage.events[0]?.id).toBe(earlier.audit?.id);
  });
});

describe('EventFeed page cost', () => {
  /** One `item.created` every 10 events, the rest `stock.changed`; `low-stock` never occurs. */
  const layout = (sequence: number): EventType => (sequence % 10 === 0 ? 'item.created' : 'stock.changed');
  const SIZES = [1_000, 50_000] as const;
  const LIMIT = 50;

  /** Pages to measure, positioned relative to the feed's end so both feeds have the same layout there. */
  const pagesOf = (seeded: SeededEvent[]) => {
    const total = seeded.length;
    const after = (position: number): Pick<FeedQuery, 'afterEventId'> => {
      const event = seeded[position - 1];
      return position > 0 && event ? { afterEventId: event.id } : {};
    };
    return {
      'unfiltered, head': { limit: LIMIT },
      'unfiltered, tail': { limit: LIMIT, ...after(total - LIMIT) },
      'filtered (1 in 10), head': { limit: LIMIT, type: 'item.created' as const },
      'filtered (1 in 10), tail': { limit: LIMIT, type: 'item.created' as const, ...after(total - 10 * LIMIT) },
      'filtered (absent type), head': { limit: LIMIT, type: 'low-stock' as const },
      'filtered (absent type), tail': { limit: LIMIT, type: 'low-stock' as const, ...after(total - FILTERED_PAGE_BUDGET) },
    } satisfies Record<string, FeedQuery>;
  };

  it(`reads the same number of items per page for a feed of ${SIZES[0]} and of ${SIZES[1]} events`, { timeout: 150_000 }, async () => {
    // Prepare
    const feed = eventFeed();
    const measured: Record<string, Record<string, { itemsRead: number; returned: number; ms: number }>> = {};
    const seeding: string[] = [];
    for (const size of SIZES) {
      const organizationId = uniqueOrganization();
      const started = performance.now();
      const seeded = await seedEvents(organizationId, size, layout, { concurrency: 8 });
      const seconds = (performance.now() - started) / 1000;
      seeding.push(`${size} events in ${seconds.toFixed(1)} s (${Math.round(size / seconds)} events/s)`);

      // Act
      measured[size] = {};
      for (const [label, query] of Object.entries(pagesOf(seeded))) {
        const pageStarted = performance.now();
        const page = await feed.read(organizationId, query);
        measured[size][label] = { itemsRead: page.itemsRead, returned: page.data.length, ms: Math.round(performance.now() - pageStarted) };
      }
    }
    console.info(`feed page cost: seeding ${seeding.join('; ')}\n${JSON.stringify(measured, null, 1)}`);

    // Assess
    const small = measured[SIZES[0]] ?? {};
    const large = measured[SIZES[1]] ?? {};
    expect(Object.keys(large)).toHaveLength(6);
    for (const label of Object.keys(large)) {
      expect(large[label]?.itemsRead, label).toBe(small[label]?.itemsRead);
      expect(large[label]?.returned, label).toBe(small[label]?.returned);
      expect(large[label]?.itemsRead, label).toBeLessThanOrEqual(FILTERED_PAGE_BUDGET);
    }
    expect(large['unfiltered, head']).toMatchObject({ itemsRead: LIMIT, returned: LIMIT });
    expect(large['unfiltered, tail']).toMatchObject({ itemsRead: LIMIT, returned: LIMIT });
    // 50 matches one in ten apart: the 50th match is the 500th event examined.
    expect(large['filtered (1 in 10), head']).toMatchObject({ itemsRead: 10 * LIMIT, returned: LIMIT });
    expect(large['filtered (1 in 10), tail']).toMatchObject({ itemsRead: 10 * LIMIT, returned: LIMIT });
    expect(large['filtered (absent type), head']).toMatchObject({ itemsRead: FILTERED_PAGE_BUDGET, returned: 0 });
    expect(large['filtered (absent type), tail']).toMatchObject({ itemsRead: FILTERED_PAGE_BUDGET, returned: 0 });
  });
});
