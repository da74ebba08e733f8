import type { DomainEvent } from '../../../../client/types.ts';
import { fakeFetch, json, problem, type FakeFetch } from './fake-fetch.ts';

/**
 * An in-memory GET /v1/events for feed-consumer tests: cursor `c<n>` is the position after the
 * n-th event, pages are `limit` events long, and the tail answers an empty page with the same cursor.
 */
export interface FakeFeed extends FakeFetch {
  events: DomainEvent[];
  append(count: number): void;
  /** Cursors the feed refuses as past the retention horizon. */
  expired: Set<string>;
}

export function eventNumber(number: number): DomainEvent {
  return {
    id: `evt_${String(number).padStart(6, '0')}`,
    type: 'low-stock',
    version: 1,
    occurredAt: '2026-01-01T00:00:00.000Z',
    organizationId: 'org_test',
    data: { itemId: 'itm_1', sku: 'SKU', onHand: number, reorderPoint: 1000 },
  };
}

export function fakeFeed(count: number): FakeFeed {
  const events: DomainEvent[] = [];
  const expired = new Set<string>();
  const append = (more: number) => {
    for (let index = 0; index < more; index += 1) events.push(eventNumber(events.length + 1));
  };
  append(count);
  const transport = fakeFetch((request) => {
    if (request.url.pathname !== '/v1/events') return problem(404, 'customer-api.route.not-found');
    const cursor = request.url.searchParams.get('cursor');
    if (cursor !== null && expired.has(cursor)) return problem(400, 'customer-api.events.cursor-expired');
    const limit = Number(request.url.searchParams.get('limit') ?? 50);
    const start = cursor === null ? 0 : Number(cursor.slice(1));
    const data = events.slice(start, start + limit);
    return json({ data, page: { nextCursor: `c${start + data.length}` } });
  });
  return { ...transport, events, append, expired };
}
