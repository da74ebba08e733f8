import { ApiError, ValidationError } from '../../platform/core/errors.ts';
import type { CursorCodec } from '../../platform/pagination/cursor.ts';
import { sequenceOfEventId } from '../../platform/events/event-id.ts';
import { EVENT_RETENTION_DAYS, type EventEnvelope, type EventType } from '../../platform/events/types.ts';
import { sleep } from '../../platform/core/backoff.ts';

/**
 * GET /v1/events (docs/events.md "Reading the feed", rules 1–6): the organization's gapless sequence, read
 * forward from a position. A filtered page examines at most FILTERED_PAGE_BUDGET events, so its
 * cost is bounded: it may come back empty and still move the cursor forward.
 */

export const FILTERED_PAGE_BUDGET = 1000;

/** Reads of an event the counter shows committed before a miss is taken for an expired event (read-feed `findCommitted`). */
const COMMITTED_FIND_ATTEMPTS = 3;
const COMMITTED_FIND_PAUSE_MS = 15;

export interface StoredEvent {
  sequence: number;
  committedAt: string;
  envelope: EventEnvelope;
}

export interface EventFeedStore {
  /**
   * Up to `maxItems` events from `fromSequence` (inclusive) on, in sequence order, strongly
   * consistent. The events of one transaction are stored together (docs/events.md "How events
   * are stored"): one batch item, several only when large, so one Query reads them unless the
   * items exceed 1 MB. Read-committed only: the events of a transaction that is committing right
   * now (or some of its batch items) may be missing while a later transaction's are present.
   */
  readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEvent[]>;
  /**
   * One event, strongly consistent but read-committed only (a Query: the event's batch is keyed by
   * its last sequence): right after `lastSequence` shows its transaction committed it may still be
   * missing for a moment; the feed reads again before it takes a miss for an expired event.
   */
  find(organizationId: string, sequence: number): Promise<StoredEvent | undefined>;
  /** The organization's sequence counter: every event up to it has committed. */
  lastSequence(organizationId: string): Promise<number>;
}

export interface FeedQuery {
  limit: number;
  type?: EventType;
  cursor?: string;
  afterEventId?: string;
}

export interface FeedPage {
  data: EventEnvelope[];
  page: { nextCursor: string };
  itemsRead: number;
}

const ENDPOINT = 'GET /v1/events';

function unknownCheckpoint(): ApiError {
  return new ApiError(400, 'customer-api.events.unknown-checkpoint', 'Unknown checkpoint', {
    detail: 'afterEventId does not name a retained event of this organization. Resume from a stored cursor, or from the start.',
  });
}

function cursorExpired(): ApiError {
  return new ApiError(400, 'customer-api.events.cursor-expired', 'Cursor expired', {
    detail: 'Events after this cursor are past the 30-day retention horizon. Start again without a cursor.',
  });
}

function isPosition(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

export class EventFeed {
  constructor(
    private readonly store: EventFeedStore,
    private readonly cursors: CursorCodec,
    private readonly clock: () => Date = () => new Date(),
  ) {}

  async read(organizationId: string, query: FeedQuery): Promise<FeedPage> {
    if (query.cursor !== undefined && query.afterEventId !== undefined) {
      throw new ValidationError([
        { location: 'query', name: 'afterEventId', code: 'conflicts-with-cursor', message: 'Send either cursor or afterEventId, never both.' },
      ]);
    }
    // Retention is judged from the stored commit time, not from TTL deletion, which lags and
    // deletes in no particular order: an event is retained while it is younger than the horizon.
    const horizon = new Date(this.clock().getTime() - EVENT_RETENTION_DAYS * 24 * 3600 * 1000).toISOString();
    const retained = (event: StoredEvent | undefined): event is StoredEvent => event !== undefined && event.committedAt >= horizon;
    const binding = { organizationId, endpoint: ENDPOINT, filters: { type: query.type } };
    const budget = query.type ? FILTERED_PAGE_BUDGET : query.limit;
    const position = await this.position(query, binding);

    // The fast path, one Query: the event at the position itself (when there is one), then the
    // page. A retained event at the position proves nothing after it has expired (commit times
    // grow with the sequence), and its retained successor right after it proves the page starts
    // where it should.
    const from = position.sequence === 0 ? 1 : position.sequence;
    let events = await this.store.readFrom(organizationId, from, budget + (position.sequence === 0 ? 0 : 1));
    const own = events[0]?.sequence === position.sequence ? events.shift() : undefined;
    if (position.kind === 'checkpoint' && (!retained(own) || own.envelope.id !== query.afterEventId)) throw unknownCheckpoint();
    let start = position.sequence;
    const successor = events[0];
    const ownRetained = start === 0 || retained(own);
    const startsRight = successor === undefined ? ownRetained : ownRetained && successor.sequence === start + 1 && retained(successor);
    if (!startsRight) {
      // The rare path: events after the position expired, or the next one is committing right
      // now (the Query saw a later one first). Decide with serializable reads, then read again.
      start = await this.checkedStart(organizationId, start, position.kind === 'cursor', retained);
      events = await this.store.readFrom(organizationId, start + 1, budget);
    }

    const data: StoredEvent[] = [];
    let examined = start;
    let itemsRead = 0;
    for (const event of events) {
      // A hole means an event still committing: stop before it, the next poll serves it.
      if (event.sequence !== examined + 1 || data.length >= query.limit) break;
      examined = event.sequence;
      itemsRead += 1;
      if (!query.type || event.envelope.type === query.type) data.push(event);
    }
    return {
      data: data.map((event) => event.envelope),
      page: { nextCursor: this.cursors.encode(examined, binding) },
      itemsRead,
    };
  }

  /**
   * Where a page after `start` really starts: `start` itself when its successor is retained (or
   * none is committed yet), else cursor-expired for a cursor, or the position before the oldest
   * retained event for a reader from the start.
   */
  private async checkedStart(
    organizationId: string,
    start: number,
    fromCursor: boolean,
    retained: (event: StoredEvent | undefined) => event is StoredEvent,
  ): Promise<number> {
    const committed = await this.store.lastSequence(organizationId);
    if (start >= committed || retained(await this.findCommitted(organizationId, start + 1))) return start;
    if (fromCursor) throw cursorExpired();
    // A reader from the start begins at the oldest retained event.
    return (await this.firstRetained(organizationId, committed, retained)) - 1;
  }

  /**
   * An event the counter shows committed. `find` is a Query, which DynamoDB promises only
   * read-committed: for a moment after the counter of a transaction is visible, its event batch
   * may not be yet. A miss is read again a few times, briefly, before it is taken for an event
   * that expired, so a reader is never told its cursor expired because of a commit in flight.
   */
  private async findCommitted(organizationId: string, sequence: number): Promise<StoredEvent | undefined> {
    for (let attempt = 1; ; attempt += 1) {
      const found = await this.store.find(organizationId, sequence);
      if (found || attempt >= COMMITTED_FIND_ATTEMPTS) return found;
      await sleep(COMMITTED_FIND_PAUSE_MS * attempt);
    }
  }

  /**
   * The smallest retained sequence number (committed + 1 when none is): commit times grow with
   * the sequence, so a binary search over it costs log2(committed) reads.
   */
  private async firstRetained(organizationId: string, committed: number, retained: (event: StoredEvent | undefined) => boolean): Promise<number> {
    let low = 1;
    let high = committed + 1;
    while (low < high) {
      const middle = Math.floor((low + high) / 2);
      if (retained(await this.store.find(organizationId, middle))) high = middle;
      else low = middle + 1;
    }
    return low;
  }

  /** The position a page reads after, from the cursor or checkpoint, without reading storage. */
  private async position(
    query: FeedQuery,
    binding: Parameters<CursorCodec['encode']>[1],
  ): Promise<{ kind: 'cursor' | 'checkpoint' | 'start'; sequence: number }> {
    if (query.cursor !== undefined) {
      const position = await this.cursors.decode(query.cursor, binding);
      if (!isPosition(position)) throw new ApiError(400, 'customer-api.pagination.invalid-cursor', 'Invalid cursor');
      return { kind: 'cursor', sequence: position };
    }
    if (query.afterEventId !== undefined) {
      const sequence = sequenceOfEventId(query.afterEventId);
      if (sequence === undefined || sequence < 1) throw unknownCheckpoint();
      return { kind: 'checkpoint', sequence };
    }
    return { kind: 'start', sequence: 0 };
  }
}
