import { beforeAll, describe, expect, it } from 'vitest';
import { domainEventSchema, EVENT_TYPES, eventsPageSchema, type EventType } from '../../lib/events/contracts/events.ts';
import { newEventId } from '../../lib/platform/events/event-id.ts';
import { FILTERED_PAGE_BUDGET } from '../../lib/events/domain/read-feed.ts';
import { CursorCodec } from '../../lib/platform/pagination/cursor.ts';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, envelopeSchemaValidator, eventDraft, expireEvents, seedEvents, typeAt } from '../support/events.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * GET /v1/events over HTTP (docs/events.md "Reading the feed" rules 1–6; docs/api-guide.md
 * "Errors: problem documents", "Lists and cursors").
 */

interface Page {
  data: EventEnvelope[];
  page: { nextCursor: string };
}

/** A fresh organization with a feed-reading key. */
async function tenant() {
  const organizationId = uniqueOrganization();
  const { key } = await createTestKey({ organizationId, scopes: ['events:read'] });
  return { organizationId, key };
}

function eventsPath(query: Record<string, string | number | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return search ? `/v1/events?${search}` : '/v1/events';
}

async function readPage(key: string, query: Record<string, string | number | undefined> = {}): Promise<Page> {
  const response = await callApi(eventsPath(query), { key });
  const body: unknown = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  return body as Page;
}

/** Follows `nextCursor` until a page brings nothing and the cursor stands still. */
async function readAll(key: string, query: Record<string, string | number | undefined> = {}): Promise<{ events: EventEnvelope[]; cursor: string }> {
  const events: EventEnvelope[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await readPage(key, { ...query, cursor });
    events.push(...page.data);
    if (page.data.length === 0 && page.page.nextCursor === cursor) return { events, cursor };
    cursor = page.page.nextCursor;
  }
}

const ids = (events: Array<{ id: string }>) => events.map((event) => event.id);

/** Changes one character of a cursor's payload or of its signature. */
function tamper(cursor: string, part: 'payload' | 'signature'): string {
  const dot = cursor.indexOf('.');
  const index = part === 'payload' ? Math.floor(dot / 2) : dot + 1 + Math.floor((cursor.length - dot - 1) / 2);
  const original = cursor.charAt(index);
  return `${cursor.slice(0, index)}${original === 'A' ? 'B' : 'A'}${cursor.slice(index + 1)}`;
}

describe('GET /v1/events input rules', () => {
  let key: string;
  let organizationId: string;
  let committed: EventEnvelope[];

  beforeAll(async () => {
    ({ key, organizationId } = await tenant());
    committed = (await commit(organizationId, [eventDraft('item.created'), eventDraft('stock.changed'), eventDraft('item.created')])).events;
  });

  it.each([['0'], ['201'], ['007'], ['abc'], ['-1'], ['1.0'], ['1e2'], [' 5'], ['']])('answers 400 validation for limit=%j', async (limit) => {
    // Act
    const response = await callApi(`/v1/events?limit=${encodeURIComponent(limit)}`, { key });
    // Assess
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    expect(problem.errors?.some((error) => error.location === 'query' && error.name === 'limit')).toBe(true);
  });

  it.each([['unknown.type'], ['ITEM.CREATED'], ['']])('answers 400 validation for type=%j', async (type) => {
    const problem = await expectProblem(await callApi(`/v1/events?type=${encodeURIComponent(type)}`, { key }), 400, 'customer-api.validation.failed');
    expect(problem.errors?.some((error) => error.name === 'type')).toBe(true);
  });

  it('answers 400 when cursor and afterEventId are sent together', async () => {
    // Prepare
    const { page } = await readPage(key, { limit: 1 });
    // Act
    const response = await callApi(eventsPath({ cursor: page.nextCursor, afterEventId: committed[0]?.id, type: undefined }), { key });
    // Assess
    const problem = await expectProblem(response, 400, 'customer-api.validation.failed');
    expect(problem.errors?.map((error) => error.name)).toContain('afterEventId');
  });

  it.each([
    ['well-formed but nonexistent (sequence beyond the feed)', () => newEventId(999)],
    ['well-formed, existing sequence, wrong random part', () => newEventId(2)],
    ['malformed', () => 'evt_nope'],
    ['not an event id at all', () => 'itm_01KH3AQWT0ZCB6Z8FRSJRCD9CS'],
  ])('answers 400 unknown-checkpoint for an afterEventId that is %s', async (_label, afterEventId) => {
    const response = await callApi(eventsPath({ afterEventId: afterEventId(), type: 'item.created' }), { key });
    await expectProblem(response, 400, 'customer-api.events.unknown-checkpoint');
  });

  it.each([['payload' as const], ['signature' as const]])('answers 400 invalid-cursor for a cursor with a changed %s', async (part) => {
    // Prepare
    const { page } = await readPage(key, { limit: 1 });
    // Act
    const response = await callApi(eventsPath({ cursor: tamper(page.nextCursor, part) }), { key });
    // Assess
    await expectProblem(response, 400, 'customer-api.pagination.invalid-cursor');
  });

  it.each([['not-a-cursor'], ['a.b.c'], ['.']])('answers 400 invalid-cursor for the garbage cursor %j', async (cursor) => {
    await expectProblem(await callApi(eventsPath({ cursor }), { key }), 400, 'customer-api.pagination.invalid-cursor');
  });

  it.each([
    ['type=stock.changed', 'stock.changed'],
    ['no type', undefined],
  ])('answers 400 invalid-cursor for a cursor issued for type=item.created used with %s', async (_label, type) => {
    // Prepare
    const { page } = await readPage(key, { type: 'item.created', limit: 1 });
    // Act
    const response = await callApi(eventsPath({ cursor: page.nextCursor, type }), { key });
    // Assess
    await expectProblem(response, 400, 'customer-api.pagination.invalid-cursor');
  });

  it('answers 400 invalid-cursor for an unfiltered cursor used with a type', async () => {
    const { page } = await readPage(key, { limit: 1 });
    await expectProblem(await callApi(eventsPath({ cursor: page.nextCursor, type: 'item.created' }), { key }), 400, 'customer-api.pagination.invalid-cursor');
  });

  it('answers 400 invalid-cursor for a cursor of another endpoint', async () => {
    // Prepare: an audit cursor (same codec, other binding); the org's two keys made two audit events
    const auditKey = (await createTestKey({ organizationId, scopes: ['audit:read', 'events:read'] })).key;
    const auditPage = (await (await callApi('/v1/audit/events?limit=1', { key: auditKey })).json()) as { page: { nextCursor: string | null } };
    expect(auditPage.page.nextCursor).toEqual(expect.any(String));
    // Act
    const response = await callApi(eventsPath({ cursor: auditPage.page.nextCursor ?? '' }), { key: auditKey });
    // Assess
    await expectProblem(response, 400, 'customer-api.pagination.invalid-cursor');
  });
});

describe('GET /v1/events retention horizon', () => {
  it.each([
    ['some events after it remain', [1, 2, 3, 4, 5, 6]],
    ['no event after it remains', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]],
  ])('answers 400 cursor-expired for a cursor whose successor expired when %s', async (_label, expired) => {
    // Prepare
    const { key, organizationId } = await tenant();
    await seedEvents(organizationId, 10, typeAt);
    const { page } = await readPage(key, { limit: 3 });
    await expireEvents(organizationId, expired);
    // Act
    const response = await callApi(eventsPath({ cursor: page.nextCursor }), { key });
    // Assess
    await expectProblem(response, 400, 'customer-api.events.cursor-expired');
  });

  it('answers 400 cursor-expired for a filtered cursor whose successor expired', async () => {
    // Prepare
    const { key, organizationId } = await tenant();
    await seedEvents(organizationId, 10, () => 'item.created');
    const { page } = await readPage(key, { limit: 3, type: 'item.created' });
    await expireEvents(organizationId, [1, 2, 3, 4]);
    // Act
    const response = await callApi(eventsPath({ cursor: page.nextCursor, type: 'item.created' }), { key });
    // Assess
    await expectProblem(response, 400, 'customer-api.events.cursor-expired');
  });

  it('answers 400 unknown-checkpoint for the afterEventId of an expired event, and serves from the oldest retained event without a position', async () => {
    // Prepare
    const { key, organizationId } = await tenant();
    const seeded = await seedEvents(organizationId, 10, typeAt);
    await expireEvents(organizationId, [1, 2, 3, 4, 5]);
    // Act
    const expiredCheckpoint = await callApi(eventsPath({ afterEventId: seeded[4]?.id, type: seeded[4]?.type }), { key });
    const alone = await callApi(eventsPath({ afterEventId: seeded[2]?.id }), { key });
    const fromStart = await readAll(key);
    // Assess
    await expectProblem(expiredCheckpoint, 400, 'customer-api.events.unknown-checkpoint');
    await expectProblem(alone, 400, 'customer-api.events.unknown-checkpoint');
    expect(ids(fromStart.events)).toEqual(ids(seeded.slice(5)));
  });

  it('keeps a cursor valid when only the event at its own position expired', async () => {
    // Prepare
    const { key, organizationId } = await tenant();
    const seeded = await seedEvents(organizationId, 6, typeAt);
    const { page } = await readPage(key, { limit: 3 });
    await expireEvents(organizationId, [1, 2, 3]);
    // Act
    const next = await readPage(key, { cursor: page.nextCursor });
    // Assess
    expect(ids(next.data)).toEqual(ids(seeded.slice(3)));
  });
});

describe('GET /v1/events paging', () => {
  let key: string;
  let seeded: Awaited<ReturnType<typeof seedEvents>>;

  beforeAll(async () => {
    const tenantOfTest = await tenant();
    key = tenantOfTest.key;
    seeded = await seedEvents(tenantOfTest.organizationId, 260, typeAt);
  });

  it.each([
    ['no limit (default 50)', undefined, 50],
    ['limit=1', 1, 1],
    ['limit=200 (maximum)', 200, 200],
  ])('serves %s oldest first', async (_label, limit, expected) => {
    // Act
    const response = await callApi(eventsPath({ limit }), { key });
    // Assess
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as Page;
    expect(ids(body.data)).toEqual(ids(seeded.slice(0, expected)));
    expect(body.page.nextCursor).toEqual(expect.any(String));
  });

  it('covers the whole feed exactly once when following nextCursor, and the order is stable', async () => {
    // Act
    const first = await readAll(key, { limit: 37 });
    const second = await readAll(key, { limit: 200 });
    // Assess
    expect(ids(first.events)).toEqual(ids(seeded));
    expect(ids(second.events)).toEqual(ids(seeded));
  });
});

describe('GET /v1/events polling', () => {
  it('returns a string nextCursor on an empty feed, and polling it later yields exactly the newer events', async () => {
    // Prepare
    const { key, organizationId } = await tenant();
    const empty = await readPage(key);
    // Act
    const committed = (await commit(organizationId, [eventDraft('item.created'), eventDraft('stock.changed')])).events;
    const polled = await readPage(key, { cursor: empty.page.nextCursor });
    const again = await readPage(key, { cursor: polled.page.nextCursor });
    const more = (await commit(organizationId, [eventDraft('low-stock')])).events;
    const later = await readPage(key, { cursor: again.page.nextCursor });
    // Assess
    expect(empty.data).toEqual([]);
    expect(empty.page.nextCursor).toEqual(expect.any(String));
    expect(ids(polled.data)).toEqual(ids(committed));
    expect(again.data).toEqual([]);
    expect(again.page.nextCursor).toEqual(expect.any(String));
    expect(ids(later.data)).toEqual(ids(more));
  });

  it('returns a string nextCursor on a filtered empty page, and polling it later yields exactly the newer events of that type', async () => {
    // Prepare
    const { key, organizationId } = await tenant();
    await commit(organizationId, [eventDraft('item.created'), eventDraft('stock.changed')]);
    const empty = await readPage(key, { type: 'low-stock' });
    // Act
    const committed = (
      await commit(organizationId, [eventDraft('stock.changed'), eventDraft('low-stock'), eventDraft('item.created'), eventDraft('low-stock')])
    ).events;
    const polled = await readPage(key, { type: 'low-stock', cursor: empty.page.nextCursor });
    const tail = await readPage(key, { type: 'low-stock', cursor: polled.page.nextCursor });
    // Assess
    expect(empty.data).toEqual([]);
    expect(empty.page.nextCursor).toEqual(expect.any(String));
    expect(ids(polled.data)).toEqual(ids(committed.filter((event) => event.type === 'low-stock')));
    expect(tail.data).toEqual([]);
    expect(tail.page.nextCursor).toEqual(expect.any(String));
  });

  it(`advances the cursor of a filtered page past ${FILTERED_PAGE_BUDGET}+ events of other types, and the next call continues`, async () => {
    // Prepare
    const { key, organizationId } = await tenant();
    const OTHER = 1_100;
    const seeded = await seedEvents(organizationId, OTHER + 30, (sequence) => (sequence > OTHER && sequence % 3 === 0 ? 'item.created' : 'stock.changed'));
    const wanted = seeded.filter((event) => event.type === 'item.created');
    // Act
    const first = await readPage(key, { type: 'item.created' });
    const second = await readPage(key, { type: 'item.created', cursor: first.page.nextCursor });
    const third = await readPage(key, { type: 'item.created', cursor: second.page.nextCursor });
    // Assess
    expect(first.data).toEqual([]);
    expect(first.page.nextCursor).toEqual(expect.any(String));
    expect(ids(second.data)).toEqual(ids(wanted));
    expect(wanted.length).toBe(10);
    expect(third.data).toEqual([]);
    expect(third.page.nextCursor).toBe(second.page.nextCursor);
  });
});

describe('GET /v1/events afterEventId', () => {
  let key: string;
  let committed: EventEnvelope[];

  beforeAll(async () => {
    const tenantOfTest = await tenant();
    key = tenantOfTest.key;
    const types: EventType[] = ['item.created', 'stock.changed', 'item.created', 'low-stock', 'item.created', 'stock.changed'];
    committed = (
      await commit(
        tenantOfTest.organizationId,
        types.map((type) => eventDraft(type)),
      )
    ).events;
  });

  it.each([
    ['with type, after an event of that type', 0, 'item.created' as const],
    ['with type, after an event of another type', 1, 'item.created' as const],
    ['with type, after the last event of that type', 4, 'item.created' as const],
    ['alone', 1, undefined],
    ['alone, after the last event', 5, undefined],
  ])('resumes strictly after the event (%s)', async (_label, position, type) => {
    // Prepare
    const checkpoint = committed[position];
    if (!checkpoint) throw new Error('no checkpoint');
    const expected = committed.slice(position + 1).filter((event) => type === undefined || event.type === type);
    // Act
    const page = await readPage(key, { afterEventId: checkpoint.id, type });
    const next = await readPage(key, { cursor: page.page.nextCursor, type });
    // Assess
    expect(ids(page.data)).toEqual(ids(expected));
    expect(page.page.nextCursor).toEqual(expect.any(String));
    expect(next.data).toEqual([]);
  });
});

describe('GET /v1/events envelopes', () => {
  it('serves envelopes of every type that validate against the committed JSON Schema of their type and domainEventSchema', async () => {
    // Prepare
    const validator = envelopeSchemaValidator();
    const { key, organizationId } = await tenant();
    const committed = (
      await commit(
        organizationId,
        EVENT_TYPES.map((type) => eventDraft(type)),
      )
    ).events;
    // Act
    const response = await callApi('/v1/events', { key, headers: { accept: 'application/json' } });
    // Assess
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as Page;
    expect(eventsPageSchema.safeParse(body).success).toBe(true);
    expect(body.data.map((event) => event.type)).toEqual([...EVENT_TYPES]);
    expect(body.data).toEqual(committed);
    for (const envelope of body.data) {
      expect(Object.keys(envelope).sort()).toEqual(['data', 'id', 'occurredAt', 'organizationId', 'type', 'version']);
      expect(envelope).toMatchObject({ version: 1, organizationId });
      expect(validator.errors(envelope), `${envelope.type} against events-schema/${envelope.type}.schema.json`).toEqual([]);
      const parsed = domainEventSchema.safeParse(envelope);
      expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
    }
  });
});

describe('GET /v1/events tenant isolation', () => {
  let a: Awaited<ReturnType<typeof tenant>> & { events: EventEnvelope[] };
  let b: Awaited<ReturnType<typeof tenant>> & { events: EventEnvelope[] };

  beforeAll(async () => {
    const [tenantA, tenantB] = await Promise.all([tenant(), tenant()]);
    // Both feeds have events at the same sequence numbers, so only the id tells them apart.
    const [eventsA, eventsB] = await Promise.all([
      commit(tenantA.organizationId, [eventDraft('item.created'), eventDraft('stock.changed'), eventDraft('item.created')]),
      commit(tenantB.organizationId, [eventDraft('item.created'), eventDraft('stock.changed')]),
    ]);
    a = { ...tenantA, events: eventsA.events };
    b = { ...tenantB, events: eventsB.events };
  });

  it.each([
    ['unfiltered', undefined],
    ['filtered', 'item.created' as const],
  ])("answers 400 invalid-cursor to org B for org A's %s cursor", async (_label, type) => {
    // Prepare
    const { page } = await readPage(a.key, { limit: 1, type });
    // Act
    const response = await callApi(eventsPath({ cursor: page.nextCursor, type }), { key: b.key });
    // Assess
    await expectProblem(response, 400, 'customer-api.pagination.invalid-cursor');
  });

  it.each([0, 1, 2])("answers 400 unknown-checkpoint to org B for org A's event #%i as afterEventId", async (index) => {
    const checkpoint = a.events[index];
    const response = await callApi(eventsPath({ afterEventId: checkpoint?.id, type: checkpoint?.type }), { key: b.key });
    await expectProblem(response, 400, 'customer-api.events.unknown-checkpoint');
  });

  it("never serves org A's events in org B's feed", async () => {
    // Act
    const feedB = await readAll(b.key, { limit: 1 });
    const filteredB = await readAll(b.key, { type: 'item.created' });
    // Assess
    expect(ids(feedB.events)).toEqual(ids(b.events));
    expect(feedB.events.every((event) => event.organizationId === b.organizationId)).toBe(true);
    expect(ids(filteredB.events)).toEqual(ids(b.events.filter((event) => event.type === 'item.created')));
    for (const id of ids(a.events)) expect(ids(feedB.events)).not.toContain(id);
  });
});

describe('retention judged from commit time (TTL deletes late and out of order)', () => {
  const DAY = 24 * 3600 * 1000;

  it('starts a reader at the oldest retained event, refuses checkpoints past the horizon, never skips silently', async () => {
    // Prepare: events 1..6 are 31 days old; TTL has removed 2 and 4 but not 1, 3, 5, 6; 7..9 are new
    const { key, organizationId } = await tenant();
    const old = await seedEvents(organizationId, 6, typeAt, { committedAt: new Date(Date.now() - 31 * DAY) });
    await expireEvents(organizationId, [2, 4]);
    const fresh = await seedEvents(organizationId, 3, typeAt, { from: 7 });

    // Act
    const fromStart = await readPage(key, { limit: 50 });
    const expiredCheckpoint = await callApi(eventsPath({ afterEventId: old[4]?.id }), { key });
    const first = await readPage(key, { limit: 1 });
    const second = await readPage(key, { cursor: first.page.nextCursor });

    // Assess: the old, undeleted events are not served, and nothing after them is skipped
    expect(fromStart.data.map((event) => event.id)).toEqual(fresh.map((event) => event.id));
    await expectProblem(expiredCheckpoint, 400, 'customer-api.events.unknown-checkpoint');
    expect(first.data.map((event) => event.id)).toEqual([fresh[0]?.id]);
    expect(second.data.map((event) => event.id)).toEqual([fresh[1]?.id, fresh[2]?.id]);
  });

  it('answers cursor-expired for a cursor whose successor is past the horizon though TTL has not removed it', async () => {
    // Prepare: a consumer read event 1 a month ago; events 1..3 are now 31 days old, none deleted
    const { key, organizationId } = await tenant();
    await seedEvents(organizationId, 3, typeAt, { committedAt: new Date(Date.now() - 31 * DAY) });
    await seedEvents(organizationId, 2, typeAt, { from: 4 });
    const staleCursor = new CursorCodec(process.env.CURSOR_SECRET ?? '').encode(1, { organizationId, endpoint: 'GET /v1/events', filters: {} });

    // Act
    const response = await callApi(eventsPath({ cursor: staleCursor }), { key });

    // Assess
    await expectProblem(response, 400, 'customer-api.events.cursor-expired');
  });
});
