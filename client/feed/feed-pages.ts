import type { InventoryClient } from '../create-client.ts';
import { ApiProblemError } from '../errors/api-problem-error.ts';
import { CURSOR_EXPIRED_CODE, CursorExpiredError } from '../errors/cursor-expired-error.ts';
import { RepeatedCursorError } from '../errors/repeated-cursor-error.ts';
import type { DomainEvent, EventType } from '../types.ts';
import { unwrap } from '../unwrap.ts';
import { MemoryCheckpointStore, type CheckpointStore } from './checkpoint-store.ts';

export interface FeedPage {
  /** At least one event, in feed order. */
  events: DomainEvent[];
  /** The cursor this page was read from (undefined for the first page of a fresh checkpoint). */
  cursor: string | undefined;
  /** Saved as the checkpoint once the page has been processed. */
  nextCursor: string;
}

export interface FeedOptions {
  /** Where the position is kept; in memory unless given. */
  checkpoints?: CheckpointStore;
  /** Page size, 1..200. */
  limit?: number;
  /** One event type; keep it the same for the whole life of a checkpoint. */
  type?: EventType;
  /** Where a consumer without a checkpoint starts (strictly after this event); else the oldest event. */
  startAfterEventId?: string;
  /** Keep polling at the tail (true) or end there (false). */
  follow?: boolean;
  /** The pause at the tail before polling again. */
  idleDelayMs?: number;
  /** Ends the iteration: during a request or a pause, or after the page being processed. */
  signal?: AbortSignal;
}

/**
 * The events feed as an async iterator of pages (docs/client.md#the-feed-consumer).
 *
 * A page's cursor is saved only when the loop asks for the next page, i.e. after the loop body
 * has processed it. Leaving the loop early (break, throw, crash) saves nothing, so the page is
 * delivered again next time: at least once, never skipped. Empty pages are not yielded; their
 * cursor is saved at once, there being nothing to process.
 *
 * A cursor already followed ends the iteration with a RepeatedCursorError, unless it is the
 * tail's: an empty page that hands back the cursor it was read from (docs/events.md). The last
 * REMEMBERED_CURSORS cursors are remembered, so a consumer that follows for months stays small.
 */
/** Cursors a feed consumer remembers to find a repeat: at 100 events a page, a million events. */
const REMEMBERED_CURSORS = 10_000;

function remember(followed: Set<string>, cursor: string): void {
  followed.add(cursor);
  // A Set iterates in insertion order: the first is the oldest.
  if (followed.size > REMEMBERED_CURSORS) followed.delete(followed.values().next().value as string);
}

export async function* feedPages(client: InventoryClient, options: FeedOptions = {}): AsyncGenerator<FeedPage, void, undefined> {
  const checkpoints = options.checkpoints ?? new MemoryCheckpointStore();
  const limit = options.limit ?? 100;
  const follow = options.follow ?? true;
  const idleDelayMs = options.idleDelayMs ?? 5000;
  const { signal } = options;

  let cursor = await checkpoints.load();
  const followed = new Set<string>(cursor === undefined ? [] : [cursor]);
  let afterEventId = cursor === undefined ? options.startAfterEventId : undefined;
  while (!signal?.aborted) {
    let body;
    try {
      body = await unwrap(client.api.GET('/v1/events', { params: { query: { limit, type: options.type, cursor, afterEventId } }, signal }));
    } catch (error) {
      if (signal?.aborted) return;
      if (error instanceof ApiProblemError && error.code === CURSOR_EXPIRED_CODE) throw new CursorExpiredError(error, cursor);
      throw error;
    }
    afterEventId = undefined;
    const page: FeedPage = { events: body.data, cursor, nextCursor: body.page.nextCursor };
    const atTail = page.events.length === 0 && page.nextCursor === cursor;
    if (!atTail && followed.has(page.nextCursor)) throw new RepeatedCursorError('GET /v1/events', page.nextCursor);
    remember(followed, page.nextCursor);
    if (page.events.length > 0) yield page;
    // Reached only once the loop body has finished with the page.
    if (page.nextCursor !== cursor) await checkpoints.save(page.nextCursor);
    cursor = page.nextCursor;

    // A short page is the tail (docs/events.md "Checkpointing and processing").
    if (body.data.length < limit) {
      if (!follow) return;
      try {
        await client.sleep(idleDelayMs, signal);
      } catch (error) {
        if (signal?.aborted) return;
        throw error;
      }
    }
  }
}
