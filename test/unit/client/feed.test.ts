import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  consumeFeed,
  createInventoryClient,
  CursorExpiredError,
  feedPages,
  MemoryCheckpointStore,
  type CheckpointStore,
  type FeedPage,
} from '../../../client/index.ts';
import { fakeFeed, type FakeFeed } from './support/fake-feed.ts';
import { recordingSleep } from './support/fake-fetch.ts';

/** The feed consumer: paging, checkpoint ordering, crash recovery, the tail, cursor-expired (docs/client.md#the-feed-consumer). */

function clientOf(feed: FakeFeed, sleep = recordingSleep().sleep) {
  return createInventoryClient({ baseUrl: 'http://api.test', apiKey: 'k', fetch: feed.fetch, sleep, retry: { maxAttempts: 1 } });
}

const idsOf = (pages: FeedPage[]) => pages.flatMap((page) => page.events.map((event) => event.id));

/** A store that logs its saves in the same log as the handler, to check their order. */
function loggingStore(log: string[], inner: CheckpointStore = new MemoryCheckpointStore()): CheckpointStore {
  return {
    load: () => inner.load(),
    clear: () => inner.clear(),
    save: async (cursor) => {
      log.push(`save ${cursor}`);
      await inner.save(cursor);
    },
  };
}

describe('feedPages', () => {
  it('pages through the feed with nextCursor and ends at the tail when not following', async () => {
    // Prepare
    const feed = fakeFeed(7);
    // Act
    const pages: FeedPage[] = [];
    for await (const page of feedPages(clientOf(feed), { limit: 3, follow: false })) pages.push(page);
    // Assess
    expect(pages.map((page) => [page.cursor, page.events.length, page.nextCursor])).toEqual([
      [undefined, 3, 'c3'],
      ['c3', 3, 'c6'],
      ['c6', 1, 'c7'],
    ]);
    expect(feed.requests.map((request) => request.url.search)).toEqual(['?limit=3', '?limit=3&cursor=c3', '?limit=3&cursor=c6']);
  });

  it('checkpoints a page only after the handler has finished it', async () => {
    // Prepare
    const log: string[] = [];
    const feed = fakeFeed(5);
    // Act
    await consumeFeed(clientOf(feed), {
      limit: 2,
      follow: false,
      checkpoints: loggingStore(log),
      handle: async (page) => {
        log.push(`start ${page.nextCursor}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
        log.push(`done ${page.nextCursor}`);
      },
    });
    // Assess
    expect(log).toEqual(['start c2', 'done c2', 'save c2', 'start c4', 'done c4', 'save c4', 'start c5', 'done c5', 'save c5']);
  });

  it('re-delivers the page whose handler ran when the process died before its checkpoint', async () => {
    // Prepare: the "process" dies right after the handler finished page 2, before its checkpoint
    const feed = fakeFeed(6);
    const checkpoints = new MemoryCheckpointStore();
    const delivered: string[] = [];
    const crash = new Error('crash');
    // Act
    const first = consumeFeed(clientOf(feed), {
      limit: 2,
      follow: false,
      checkpoints,
      handle: (page) => {
        delivered.push(...page.events.map((event) => event.id));
        if (page.nextCursor === 'c4') throw crash;
      },
    });
    await expect(first).rejects.toBe(crash);
    const savedAtCrash = await checkpoints.load();
    const resumed: FeedPage[] = [];
    await consumeFeed(clientOf(feed), { limit: 2, follow: false, checkpoints, handle: (page) => void resumed.push(page) });
    // Assess
    expect(savedAtCrash).toBe('c2');
    expect(resumed[0]?.cursor).toBe('c2');
    expect(idsOf(resumed)).toEqual(feed.events.slice(2).map((event) => event.id));
    expect(await checkpoints.load()).toBe('c6');
  });

  it('does not checkpoint a page the loop broke out of', async () => {
    const feed = fakeFeed(4);
    const checkpoints = new MemoryCheckpointStore();
    for await (const page of feedPages(clientOf(feed), { limit: 2, checkpoints })) {
      expect(page.nextCursor).toBe('c2');
      break;
    }
    expect(await checkpoints.load()).toBeUndefined();
  });

  it('never skips an event and re-delivers at most one page, whatever the crash points (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 7 }),
        fc.array(fc.integer({ min: 1, max: 40 }), { maxLength: 6 }),
        async (count, limit, crashes) => {
          // Prepare: each run crashes (before its checkpoint) after handling its n-th page, if it gets that far
          const feed = fakeFeed(count);
          const checkpoints = new MemoryCheckpointStore();
          const delivered: string[] = [];
          // Act
          for (const crashAfter of [...crashes, Infinity]) {
            let handled = 0;
            const run = consumeFeed(clientOf(feed), {
              limit,
              follow: false,
              checkpoints,
              handle: (page) => {
                const ids = page.events.map((event) => event.id);
                const firstId = ids[0] ?? '';
                // At most the last page is delivered again: nothing before it comes back.
                const redelivered = delivered.includes(firstId);
                if (redelivered) expect(delivered.slice(-ids.length)).toEqual(ids);
                delivered.push(...(redelivered ? [] : ids));
                handled += 1;
                if (handled >= crashAfter) throw new Error('crash');
              },
            });
            await run.catch(() => undefined);
          }
          // Assess: every event, in feed order, exactly once after de-duplication
          expect(delivered).toEqual(feed.events.map((event) => event.id));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('keeps polling at the tail after the idle delay, and stops when aborted', async () => {
    // Prepare: new events arrive while the consumer idles; the third idle aborts it
    const feed = fakeFeed(2);
    const controller = new AbortController();
    const { sleep, sleeps } = recordingSleep();
    const client = clientOf(feed, async (ms, signal) => {
      await sleep(ms, signal);
      if (sleeps.length === 1) feed.append(3);
      if (sleeps.length === 3) controller.abort();
    });
    const checkpoints = new MemoryCheckpointStore();
    // Act
    const pages: FeedPage[] = [];
    for await (const page of feedPages(client, { limit: 10, idleDelayMs: 1234, checkpoints, signal: controller.signal })) pages.push(page);
    // Assess
    expect(pages.map((page) => page.events.length)).toEqual([2, 3]);
    expect(sleeps).toEqual([1234, 1234, 1234]);
    expect(await checkpoints.load()).toBe('c5');
  });

  it('checkpoints the page being handled when the signal aborts meanwhile, then ends', async () => {
    const feed = fakeFeed(6);
    const controller = new AbortController();
    const checkpoints = new MemoryCheckpointStore();
    await consumeFeed(clientOf(feed), {
      limit: 2,
      checkpoints,
      signal: controller.signal,
      handle: () => controller.abort(),
    });
    expect(await checkpoints.load()).toBe('c2');
  });

  it('throws CursorExpiredError with the refused cursor', async () => {
    // Prepare
    const feed = fakeFeed(3);
    feed.expired.add('c1');
    const checkpoints = new MemoryCheckpointStore('c1');
    // Act
    const error = await consumeFeed(clientOf(feed), { checkpoints, handle: () => undefined }).catch((caught: unknown) => caught);
    // Assess
    expect(error).toBeInstanceOf(CursorExpiredError);
    expect(error).toMatchObject({ status: 400, code: 'customer-api.events.cursor-expired', cursor: 'c1', traceId: 'trace-400' });
    expect(await checkpoints.load()).toBe('c1');
  });

  it('recovers from an expired cursor by clearing the checkpoint and reading from the oldest event', async () => {
    const feed = fakeFeed(3);
    feed.expired.add('c1');
    const checkpoints = new MemoryCheckpointStore('c1');
    const pages: FeedPage[] = [];
    const consume = () => consumeFeed(clientOf(feed), { checkpoints, follow: false, handle: (page) => void pages.push(page) });
    await consume().catch(async (error: unknown) => {
      if (!(error instanceof CursorExpiredError)) throw error;
      await checkpoints.clear();
      await consume();
    });
    expect(idsOf(pages)).toEqual(feed.events.map((event) => event.id));
  });

  it('starts after startAfterEventId only when there is no checkpoint', async () => {
    const feed = fakeFeed(3);
    await consumeFeed(clientOf(feed), { follow: false, startAfterEventId: 'evt_000001', handle: () => undefined });
    await consumeFeed(clientOf(feed), {
      follow: false,
      startAfterEventId: 'evt_000001',
      checkpoints: new MemoryCheckpointStore('c2'),
      handle: () => undefined,
    });
    expect(feed.requests.map((request) => request.url.searchParams.get('afterEventId'))).toEqual(['evt_000001', null]);
  });
});
