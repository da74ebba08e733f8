import type { EventType } from '../../contracts/events.ts';
import { ApiError, ValidationError } from '../errors.ts';
import type { CursorCodec } from '../pagination/cursor.ts';
import { sequenceOfEventId } from './event-id.ts';
import { EVENT_RETENTION_DAYS, type EventEnvelope } from './types.ts';

/**
 * GET /v1/events (docs/events.md "Reading the feed", rules 1–6): the organization's gapless sequence, read
 * forward from a position. A filtered page examines at most FILTERED_PAGE_BUDGET events, so its
 * cost is bounded: it may come back empty and still move the cursor forward.
 */

export const FILTERED_PAGE_BUDGET = 1000;

export interface StoredEvent {
  sequence: number;
  committedAt: string;
  envelope: EventEnvelope;
}

export interface FeedSlice {
  /** Events examined, in sequence order, already narrowed to `type` when given. */
  events: StoredEvent[];
  /** Sequence of the last event examined (matching or not), if any. */
  lastExamined?: number;
  /** Sequence of the first event examined, if any (to detect expired positions). */
  firstExamined?: number;
  itemsRead: number;
}

export interface EventFeedStore {
  /** Reads forward after `afterSequence`, stopping at `limit` matches or `budget` examined events. */
  readAfter(organizationId: string, afterSequence: number, options: { limit: number; type?: EventType; budget: number }): Promise<FeedSlice>;
  find(organizationId: string, sequence: number): Promise<StoredEvent | undefined>;
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
    let start = await this.startPosition(organizationId, query, binding, retained);

    // The counter first (every event up to it has committed), then the successor of the position.
    const committed = await this.store.lastSequence(organizationId);
    if (start < committed && !retained(await this.store.find(organizationId, start + 1))) {
      if (query.cursor !== undefined) throw cursorExpired();
      // A reader from the start begins at the oldest retained event.
      start = (await this.firstRetained(organizationId, committed, retained)) - 1;
    }

    const slice = await this.store.readAfter(organizationId, start, {
      limit: query.limit,
      type: query.type,
      budget: query.type ? FILTERED_PAGE_BUDGET : query.limit,
    });

    const lastReturned = slice.events.at(-1)?.sequence;
    const reachedLimit = slice.events.length >= query.limit;
    const next = reachedLimit && lastReturned !== undefined ? lastReturned : (slice.lastExamined ?? start);
    return {
      data: slice.events.map((event) => event.envelope),
      page: { nextCursor: this.cursors.encode(next, binding) },
      itemsRead: slice.itemsRead,
    };
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

  private async startPosition(
    organizationId: string,
    query: FeedQuery,
    binding: Parameters<CursorCodec['encode']>[1],
    retained: (event: StoredEvent | undefined) => event is StoredEvent,
  ): Promise<number> {
    if (query.cursor !== undefined) {
      const position = this.cursors.decode(query.cursor, binding);
      if (!isPosition(position)) throw new ApiError(400, 'customer-api.pagination.invalid-cursor', 'Invalid cursor');
      return position;
    }
    if (query.afterEventId !== undefined) {
      const sequence = sequenceOfEventId(query.afterEventId);
      const found = sequence === undefined ? undefined : await this.store.find(organizationId, sequence);
      if (!retained(found) || found.envelope.id !== query.afterEventId) throw unknownCheckpoint();
      return found.sequence;
    }
    return 0;
  }
}
