import { beforeAll, describe, expect, it } from 'vitest';
import { auditEventsPageSchema } from '../../lib/audit/contracts/audit-events.ts';
import type { AuditEvent, AuditKind } from '../../lib/platform/audit/types.ts';
import { callApi, createTestKey, keysStore, uniqueOrganization } from '../support/api.ts';
import { auditDraft, commit, eventDraft } from '../support/events.ts';
import { expectProblem } from '../support/problem.ts';

/** GET /v1/audit/events over HTTP (docs/api-guide.md "Audit", "Lists and cursors"). */

interface Page {
  data: AuditEvent[];
  page: { nextCursor: string | null };
}

type Query = Record<string, string | number | undefined>;

function auditPath(query: Query = {}): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value));
  const search = params.toString();
  return search ? `/v1/audit/events?${search}` : '/v1/audit/events';
}

async function readPage(key: string, query: Query = {}): Promise<Page> {
  const response = await callApi(auditPath(query), { key });
  const body: unknown = await response.json();
  expect(response.status, JSON.stringify(body)).toBe(200);
  expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
  const parsed = auditEventsPageSchema.safeParse(body);
  expect(parsed.success, JSON.stringify(parsed.error?.issues)).toBe(true);
  return body as Page;
}

/** Every page from the first, following `nextCursor` until it is null. */
async function readAll(key: string, query: Query = {}): Promise<{ events: AuditEvent[]; pages: Page[] }> {
  const pages: Page[] = [];
  let cursor: string | undefined;
  do {
    const page = await readPage(key, { ...query, cursor });
    pages.push(page);
    cursor = page.page.nextCursor ?? undefined;
    if (pages.length > 100) throw new Error('the audit list does not end');
  } while (cursor);
  return { events: pages.flatMap((page) => page.data), pages };
}

const ids = (events: Array<{ id: string }>) => events.map((event) => event.id);
/** The documented order: newest first (ties by id, as the store sorts). */
const newestFirst = (events: AuditEvent[]) =>
  [...events].sort((a, b) => (a.occurredAt === b.occurredAt ? b.id.localeCompare(a.id) : b.occurredAt.localeCompare(a.occurredAt)));
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** An organization with an audit-reading key and `kinds.length` committed writes, one kind each. */
async function auditedTenant(kinds: AuditKind[]) {
  const organizationId = uniqueOrganization();
  const { key, record } = await createTestKey({ organizationId, scopes: ['audit:read'] });
  const written: AuditEvent[] = [];
  for (const [index, kind] of kinds.entries()) {
    const result = await commit(organizationId, index % 2 === 0 ? [eventDraft('item.created')] : [], { audit: auditDraft(kind, `${kind} #${index}`) });
    if (!result.audit) throw new Error('the writer returned no audit event');
    written.push(result.audit);
    // Mostly distinct milliseconds, so time ranges have something to cut.
    if (index % 3 !== 2) await pause(2);
  }
  return { organizationId, key, keyId: record.keyId, written };
}

const KINDS: AuditKind[] = [
  'bom.created',
  'bom.updated',
  'attachment.uploaded',
  'bom.updated',
  'import.submitted',
  'bom.created',
  'bom.updated',
  'attachment.linked',
  'import.completed',
  'bom.updated',
  'attachment.deleted',
  'bom.created',
];

describe('GET /v1/audit/events listing', () => {
  let tenant: Awaited<ReturnType<typeof auditedTenant>>;
  let all: AuditEvent[];

  beforeAll(async () => {
    tenant = await auditedTenant(KINDS);
    all = (await readPage(tenant.key, { limit: 200 })).data;
  });

  it('lists every committed write and the key creation, newest first, each exactly once', () => {
    // Assess
    expect(all).toHaveLength(KINDS.length + 1);
    expect(ids(all)).toEqual(ids(newestFirst(all)));
    const keyCreated = all.filter((event) => event.kind === 'api-key.created');
    expect(keyCreated).toEqual([expect.objectContaining({ actor: { type: 'system', id: expect.any(String) }, target: { kind: 'api-key', id: tenant.keyId } })]);
    expect(newestFirst(all.filter((event) => event.kind !== 'api-key.created'))).toEqual(newestFirst(tenant.written));
  });

  it.each([[1], [4], [6], [13], [200]])('pages with limit=%i through every event exactly once, with a null nextCursor only on the last page', async (limit) => {
    // Act
    const { events, pages } = await readAll(tenant.key, { limit });
    // Assess
    expect(ids(events)).toEqual(ids(all));
    expect(pages).toHaveLength(Math.max(1, Math.ceil(all.length / limit)));
    pages.slice(0, -1).forEach((page) => {
      expect(page.data).toHaveLength(limit);
      expect(page.page.nextCursor).toEqual(expect.any(String));
    });
    expect(pages.at(-1)?.page.nextCursor).toBeNull();
  });

  it('serves a default page of at most 50 with a null nextCursor when everything fits', async () => {
    const page = await readPage(tenant.key);
    expect(ids(page.data)).toEqual(ids(all));
    expect(page.page.nextCursor).toBeNull();
  });

  it.each([['bom.created'], ['bom.updated'], ['attachment.deleted'], ['api-key.created'], ['import.failed']] as Array<[AuditKind]>)(
    'filters by kind=%s, newest first, through pages of 2',
    async (kind) => {
      // Act
      const { events, pages } = await readAll(tenant.key, { kind, limit: 2 });
      // Assess
      const expected = all.filter((event) => event.kind === kind);
      expect(ids(events)).toEqual(ids(expected));
      expect(pages.at(-1)?.page.nextCursor).toBeNull();
    },
  );

  it.each([0, 3, 6, 9, 12])('includes an event at fromUtc and excludes one at toUtc (boundary at event #%i, newest first)', async (index) => {
    // Prepare
    const boundary = all[index]?.occurredAt;
    if (!boundary) throw new Error('no boundary event');
    // Act
    const from = await readAll(tenant.key, { fromUtc: boundary, limit: 5 });
    const to = await readAll(tenant.key, { toUtc: boundary, limit: 5 });
    const both = await readPage(tenant.key, { fromUtc: boundary, toUtc: boundary });
    // Assess
    expect(ids(from.events)).toEqual(ids(all.filter((event) => event.occurredAt >= boundary)));
    expect(ids(from.events)).toContain(all[index]?.id);
    expect(ids(to.events)).toEqual(ids(all.filter((event) => event.occurredAt < boundary)));
    expect(ids(to.events)).not.toContain(all[index]?.id);
    expect(from.events.length + to.events.length).toBe(all.length);
    expect(both).toEqual({ data: [], page: { nextCursor: null } });
  });

  it('combines fromUtc, toUtc and kind', async () => {
    // Prepare
    const fromUtc = all[10]?.occurredAt ?? '';
    const toUtc = all[2]?.occurredAt ?? '';
    // Act
    const { events } = await readAll(tenant.key, { fromUtc, toUtc, kind: 'bom.updated', limit: 1 });
    // Assess
    expect(ids(events)).toEqual(ids(all.filter((event) => event.kind === 'bom.updated' && event.occurredAt >= fromUtc && event.occurredAt < toUtc)));
  });

  it('reads fromUtc and toUtc with a UTC offset as the same instants', async () => {
    // Prepare
    const boundary = new Date(all[5]?.occurredAt ?? '');
    const plusTwo = new Date(boundary.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');
    // Act
    const withOffset = await readPage(tenant.key, { fromUtc: plusTwo });
    // Assess
    expect(ids(withOffset.data)).toEqual(ids(all.filter((event) => event.occurredAt >= boundary.toISOString())));
  });
});

describe('GET /v1/audit/events input rules', () => {
  let key: string;
  let kindCursor: string;
  let plainCursor: string;

  beforeAll(async () => {
    const tenant = await auditedTenant(['bom.created', 'bom.created', 'bom.created', 'bom.updated']);
    key = tenant.key;
    kindCursor = (await readPage(key, { kind: 'bom.created', limit: 1 })).page.nextCursor ?? '';
    plainCursor = (await readPage(key, { limit: 1 })).page.nextCursor ?? '';
  });

  it('answers 400 validation when fromUtc is after toUtc', async () => {
    const response = await callApi(auditPath({ fromUtc: '2026-03-02T10:00:00.001Z', toUtc: '2026-03-02T10:00:00Z' }), { key });
    await expectProblem(response, 400, 'customer-api.validation.failed');
  });

  it.each([['unknown.kind'], ['BOM.CREATED'], ['stock.changed'], ['']])('answers 400 validation for kind=%j', async (kind) => {
    const problem = await expectProblem(await callApi(auditPath({ kind }), { key }), 400, 'customer-api.validation.failed');
    expect(problem.errors?.some((error) => error.location === 'query' && error.name === 'kind')).toBe(true);
  });

  it.each([
    ['fromUtc', 'yesterday'],
    ['fromUtc', '2026-03-02'],
    ['fromUtc', '2026-03-02T10:00:00'],
    ['toUtc', '2026-13-02T10:00:00Z'],
    ['toUtc', '2026-03-02 10:00:00Z'],
    ['toUtc', '1700000000'],
    // In range as written, but their UTC instant falls outside years 0001–9999.
    ['toUtc', '9999-12-31T23:00:00-01:00'],
    ['fromUtc', '9999-12-31T23:00:00-01:00'],
    ['fromUtc', '0001-01-01T00:30:00+01:00'],
    ['toUtc', '0000-06-01T00:00:00Z'],
    ['toUtc', '9999-12-31T23:59:59.9991Z'],
  ])('answers 400 validation for %s=%j', async (name, value) => {
    const problem = await expectProblem(await callApi(auditPath({ [name]: value }), { key }), 400, 'customer-api.validation.failed');
    expect(problem.errors?.some((error) => error.location === 'query' && error.name === name)).toBe(true);
  });

  it.each([['0'], ['201'], ['007'], ['abc']])('answers 400 validation for limit=%j', async (limit) => {
    await expectProblem(await callApi(auditPath({ limit }), { key }), 400, 'customer-api.validation.failed');
  });

  it.each([
    ['kind cursor with another kind', () => kindCursor, { kind: 'bom.updated' }],
    ['kind cursor without kind', () => kindCursor, {}],
    ['kind cursor with an added fromUtc', () => kindCursor, { kind: 'bom.created', fromUtc: '2020-01-01T00:00:00Z' }],
    ['unfiltered cursor with a kind', () => plainCursor, { kind: 'bom.created' }],
    ['unfiltered cursor with a toUtc', () => plainCursor, { toUtc: '2099-01-01T00:00:00Z' }],
  ])('answers 400 invalid-cursor for a %s', async (_label, cursor, filters: Query) => {
    await expectProblem(await callApi(auditPath({ ...filters, cursor: cursor() }), { key }), 400, 'customer-api.pagination.invalid-cursor');
  });

  it('answers 400 invalid-cursor for a tampered cursor', async () => {
    const tampered = `${plainCursor.slice(0, 5)}${plainCursor.charAt(5) === 'A' ? 'B' : 'A'}${plainCursor.slice(6)}`;
    await expectProblem(await callApi(auditPath({ cursor: tampered }), { key }), 400, 'customer-api.pagination.invalid-cursor');
  });

  it('continues with a cursor sent back with the same filters', async () => {
    const next = await readPage(key, { kind: 'bom.created', limit: 1, cursor: kindCursor });
    expect(next.data.map((event) => event.kind)).toEqual(['bom.created']);
  });
});

describe('GET /v1/audit/events key management events', () => {
  it('lists api-key.created and api-key.revoked written by the keys CLI, with a system actor', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const reader = await createTestKey({ organizationId, scopes: ['audit:read'] });
    const managed = await createTestKey({ organizationId, name: 'integration key', scopes: ['events:read'] });
    const revokedAt = new Date().toISOString();

    // Act
    await keysStore().revoke(managed.record.keyId, revokedAt);
    await keysStore().revoke(managed.record.keyId, new Date().toISOString());
    const { events } = await readAll(reader.key, { limit: 2 });

    // Assess
    const system = { type: 'system', id: expect.any(String) };
    expect(events.map((event) => [event.kind, event.target.id])).toEqual([
      ['api-key.revoked', managed.record.keyId],
      ['api-key.created', managed.record.keyId],
      ['api-key.created', reader.record.keyId],
    ]);
    expect(events[0]).toMatchObject({
      actor: system,
      target: { kind: 'api-key' },
      changes: [{ field: 'revokedAt', from: null, to: revokedAt }],
      idempotencyKey: null,
    });
    expect(events[1]).toMatchObject({ actor: system, target: { kind: 'api-key' }, changes: [], idempotencyKey: null });
    expect(events[1]?.summary).toContain('integration key');
    const revokedOnly = await readPage(reader.key, { kind: 'api-key.revoked' });
    expect(ids(revokedOnly.data)).toEqual([events[0]?.id]);
  });
});

describe('GET /v1/audit/events tenant isolation', () => {
  it("never shows org A's audit events to org B, and rejects org A's cursor", async () => {
    // Prepare
    const [a, b] = await Promise.all([auditedTenant(['bom.created', 'bom.updated', 'bom.created']), auditedTenant(['bom.created'])]);
    const cursorOfA = (await readPage(a.key, { limit: 1 })).page.nextCursor ?? '';

    // Act
    const listOfB = await readAll(b.key, { limit: 1 });
    const createdOfB = await readAll(b.key, { kind: 'bom.created' });
    const foreignCursor = await callApi(auditPath({ limit: 1, cursor: cursorOfA }), { key: b.key });

    // Assess
    expect(ids(listOfB.events)).toEqual(ids(newestFirst([...b.written, ...listOfB.events.filter((event) => event.kind === 'api-key.created')])));
    expect(listOfB.events).toHaveLength(2);
    expect(ids(createdOfB.events)).toEqual(ids(b.written));
    for (const event of a.written) expect(ids(listOfB.events)).not.toContain(event.id);
    await expectProblem(foreignCursor, 400, 'customer-api.pagination.invalid-cursor');
  });
});
