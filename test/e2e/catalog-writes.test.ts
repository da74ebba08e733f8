import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';

/**
 * Catalog writes over HTTP against `npm start` (docs/inventory.md "Writing the catalog"):
 * `POST /v1/items`, `PATCH /v1/items/{id}`, `POST /v1/locations`, `PATCH /v1/locations/{id}`:
 * the record, its ETag and version, the idempotent replay, compare-and-set with If-Match, the
 * one door with the import kinds, renames, archive, the parent rules, every documented problem
 * and the scope.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

interface ItemView {
  id: string;
  sku: string;
  name: string;
  unit: string;
  description: string | null;
  category: string | null;
  barcode: string | null;
  reorderPoint: number | null;
  trackingMode: string;
  status: string;
  version: number;
  onHand: number;
  createdAt: string;
  updatedAt: string;
}

interface LocationView {
  id: string;
  code: string;
  name: string;
  type: string;
  parentCode: string | null;
  status: string;
  version: number;
}

interface Problem {
  status: number;
  code: string;
  errors?: Array<{ pointer?: string; code: string }>;
  [member: string]: unknown;
}

let key: string;

beforeAll(async () => {
  ({ key } = await createTestKey());
});

function send(
  method: 'POST' | 'PATCH',
  path: string,
  body: unknown,
  options: { idempotencyKey?: string; key?: string; ifMatch?: string; contentType?: string } = {},
) {
  return callApi(path, {
    method,
    key: options.key ?? key,
    headers: {
      'content-type': options.contentType ?? (method === 'PATCH' ? 'application/merge-patch+json' : 'application/json'),
      'idempotency-key': options.idempotencyKey ?? randomUUID(),
      ...(options.ifMatch === undefined ? {} : { 'if-match': options.ifMatch }),
    },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

async function created<T>(path: string, body: unknown): Promise<T> {
  const response = await send('POST', path, body);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as T;
}

async function patched<T>(path: string, body: unknown, ifMatch?: string): Promise<T> {
  const response = await send('PATCH', path, body, ifMatch === undefined ? {} : { ifMatch });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as T;
}

async function problem(response: Response, status: number, code: string): Promise<Problem> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  const body = JSON.parse(text) as Problem;
  expect(body.code).toBe(code);
  return body;
}

async function eventsOf(types: string[], itemId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  const all: Array<{ type: string; data: Record<string, unknown> }> = [];
  let cursor: string | undefined;
  for (let page = 0; page < 20; page += 1) {
    const response = await callApi(`/v1/events?limit=200${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, { key });
    const body = (await response.json()) as { data: Array<{ type: string; data: Record<string, unknown> }>; page: { nextCursor: string } };
    all.push(...body.data);
    if (body.data.length === 0) break;
    cursor = body.page.nextCursor;
  }
  return all.filter((event) => types.includes(event.type) && (event.data.item as { id?: string } | undefined)?.id === itemId);
}

async function auditKinds(targetId: string): Promise<string[]> {
  const response = await callApi('/v1/audit/events?limit=200', { key });
  const body = (await response.json()) as { data: Array<{ kind: string; target: { id: string } }> };
  return body.data.filter((entry) => entry.target.id === targetId).map((entry) => entry.kind);
}

describe('POST /v1/items', () => {
  it('creates the item with the import kind’s defaults: 201, Location, ETag "1", version 1, item.created and its audit entry; a replay is byte for byte', async () => {
    // Act
    const idempotencyKey = randomUUID();
    const body = { sku: 'CW-1', name: 'Catalog widget', reorderPoint: 5 };
    const response = await send('POST', '/v1/items', body, { idempotencyKey });
    const text = await response.text();
    const replay = await send('POST', '/v1/items', body, { idempotencyKey });

    // Assess
    expect(response.status, text).toBe(201);
    const item = JSON.parse(text) as ItemView;
    expect(item).toMatchObject({
      sku: 'CW-1',
      name: 'Catalog widget',
      unit: 'ea',
      description: null,
      category: null,
      barcode: null,
      reorderPoint: 5,
      trackingMode: 'none',
      status: 'active',
      version: 1,
      onHand: 0,
    });
    expect(response.headers.get('location')).toBe(`/v1/items/${item.id}`);
    expect(response.headers.get('etag')).toBe('"1"');
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(await replay.text()).toBe(text);
    const read = await callApi(`/v1/items/${item.id}`, { key });
    expect(read.headers.get('etag')).toBe('"1"');
    expect(await read.json()).toEqual(item);
    const events = await eventsOf(['item.created'], item.id);
    expect(events).toHaveLength(1);
    expect(events[0]?.data.item).toEqual({
      id: item.id,
      sku: 'CW-1',
      name: 'Catalog widget',
      unit: 'ea',
      description: null,
      category: null,
      barcode: null,
      reorderPoint: 5,
      trackingMode: 'none',
      createdAt: item.createdAt,
      updatedAt: item.updatedAt,
    });
    expect(await auditKinds(item.id)).toEqual(['item.created']);
  });

  it('answers 409 customer-api.inventory.sku-taken with the holder’s itemId, for an item created by an import too', async () => {
    // Arrange
    const imported = await importAndWait(key, { kind: 'items', duplicateStrategy: 'fail', file: csv('sku,name', 'CW-IMPORTED,From a file') });
    expect(imported.status).toBe('succeeded');
    const holder = ((await (await callApi('/v1/items?sku=CW-IMPORTED', { key })).json()) as { data: ItemView[] }).data[0]!;

    // Act
    const taken = await send('POST', '/v1/items', { sku: 'CW-IMPORTED', name: 'Again' });

    // Assess
    expect(await problem(taken, 409, 'customer-api.inventory.sku-taken')).toMatchObject({ itemId: holder.id });
  });

  it('answers 400 naming every bad field, refusing unknown members and over-long values as the import kind bounds them', async () => {
    // Act
    const bad = await send('POST', '/v1/items', {
      sku: ' padded',
      name: '   ',
      unit: 'x'.repeat(17),
      description: 'd'.repeat(2001),
      reorderPoint: -1,
      trackingMode: 'serial',
      colour: 'blue',
    });
    const missing = await send('POST', '/v1/items', {});
    const notJson = await send('POST', '/v1/items', '{"sku":', {});

    // Assess
    const body = await problem(bad, 400, 'customer-api.validation.failed');
    const pointers = (body.errors ?? []).map((error) => error.pointer);
    for (const pointer of ['/sku', '/name', '/unit', '/description', '/reorderPoint', '/trackingMode']) expect(pointers).toContain(pointer);
    expect(JSON.stringify(body.errors)).toContain('colour');
    const missingPointers = ((await problem(missing, 400, 'customer-api.validation.failed')).errors ?? []).map((error) => error.pointer);
    expect(missingPointers).toEqual(expect.arrayContaining(['/sku', '/name']));
    expect(notJson.status).toBe(400);
  });

  it('answers 403 insufficient-scope to a key without inventory:write, and 400 without an Idempotency-Key', async () => {
    // Arrange
    const { key: readOnly } = await createTestKey({ scopes: ['inventory:read'] });

    // Act
    const forbidden = await send('POST', '/v1/items', { sku: 'CW-403', name: 'No' }, { key: readOnly });
    const noKey = await callApi('/v1/items', { method: 'POST', key, headers: { 'content-type': 'application/json' }, body: '{"sku":"CW-NOKEY","name":"n"}' });

    // Assess
    expect(await problem(forbidden, 403, 'customer-api.auth.insufficient-scope')).toMatchObject({ requiredScope: 'inventory:write' });
    await problem(noKey, 400, 'customer-api.idempotency.key-missing');
  });
});

describe('PATCH /v1/items/{id}', () => {
  it('changes the fields sent, null clears to the default, item.updated names changedFields and previous; ETag and version move by one', async () => {
    // Arrange
    const item = await created<ItemView>('/v1/items', { sku: 'CW-PATCH', name: 'Before', unit: 'kg', category: 'Tools' });

    // Act
    const after = await patched<ItemView>(`/v1/items/${item.id}`, { name: 'After', unit: null, category: null, barcode: '4006381333931' });

    // Assess
    expect(after).toMatchObject({ id: item.id, name: 'After', unit: 'ea', category: null, barcode: '4006381333931', version: 2 });
    const read = await callApi(`/v1/items/${item.id}`, { key });
    expect(read.headers.get('etag')).toBe('"2"');
    const [, updated] = await eventsOf(['item.created', 'item.updated'], item.id);
    expect(updated?.type).toBe('item.updated');
    expect(updated?.data.changedFields).toEqual(['name', 'unit', 'category', 'barcode']);
    expect(updated?.data.previous).toEqual({ name: 'Before', unit: 'kg', category: 'Tools', barcode: null });
    expect(await auditKinds(item.id)).toEqual(['item.updated', 'item.created']);
  });

  it('answers a PATCH that changes nothing with 200 and the same version: no event, no audit entry', async () => {
    // Arrange
    const item = await created<ItemView>('/v1/items', { sku: 'CW-SAME', name: 'Same' });

    // Act
    const same = await patched<ItemView>(`/v1/items/${item.id}`, { name: 'Same', unit: 'ea' }, '"1"');

    // Assess
    expect(same.version).toBe(1);
    expect(await eventsOf(['item.updated'], item.id)).toEqual([]);
    expect(await auditKinds(item.id)).toEqual(['item.created']);
  });

  it('gives exactly one 200 and one 412 precondition-failed (with the current version) to two clients PATCHing with the same If-Match', async () => {
    // Arrange
    const item = await created<ItemView>('/v1/items', { sku: 'CW-RACE', name: 'Race' });

    // Act
    const responses = await Promise.all(['First', 'Second'].map((name) => send('PATCH', `/v1/items/${item.id}`, { name }, { ifMatch: '"1"' })));

    // Assess
    const statuses = responses.map((response) => response.status).sort();
    expect(statuses).toEqual([200, 412]);
    const refused = responses.find((response) => response.status === 412)!;
    expect(await problem(refused, 412, 'customer-api.precondition-failed')).toMatchObject({ version: 2 });
    const read = (await (await callApi(`/v1/items/${item.id}`, { key })).json()) as ItemView;
    expect(read.version).toBe(2);
    expect(await eventsOf(['item.updated'], item.id)).toHaveLength(1);
  });

  it('answers 404 for an unknown or foreign id, 400 for unknown members or a null name', async () => {
    // Arrange
    const item = await created<ItemView>('/v1/items', { sku: 'CW-404', name: 'Mine' });
    const { key: other } = await createTestKey();

    // Act
    const foreign = await send('PATCH', `/v1/items/${item.id}`, { name: 'Theirs' }, { key: other });
    const unknown = await send('PATCH', '/v1/items/itm_01J00000000000000000000000', { name: 'x' });
    const unknownField = await send('PATCH', `/v1/items/${item.id}`, { colour: 'red' });
    const nullName = await send('PATCH', `/v1/items/${item.id}`, { name: null, sku: null });

    // Assess
    await problem(foreign, 404, 'customer-api.inventory.not-found');
    await problem(unknown, 404, 'customer-api.inventory.not-found');
    await problem(unknownField, 400, 'customer-api.validation.failed');
    const pointers = ((await problem(nullName, 400, 'customer-api.validation.failed')).errors ?? []).map((error) => error.pointer);
    expect(pointers).toEqual(expect.arrayContaining(['/name', '/sku']));
  });
});

describe('one door with the import kinds', () => {
  it('skips or updates through an import what JSON created, and PATCHes what an import created, with the same envelopes', async () => {
    // Arrange
    const json = await created<ItemView>('/v1/items', { sku: 'CW-DOOR-1', name: 'By JSON' });
    const imported = await importAndWait(key, { kind: 'items', duplicateStrategy: 'fail', file: csv('sku,name,unit', 'CW-DOOR-2,By file,kg') });
    expect(imported.status).toBe('succeeded');

    // Act
    const skip = await importAndWait(key, { kind: 'items', duplicateStrategy: 'skip', file: csv('sku,name', 'CW-DOOR-1,Ignored') });
    const update = await importAndWait(key, { kind: 'items', duplicateStrategy: 'update', file: csv('sku,name', 'CW-DOOR-1,By file now') });
    const fromFile = ((await (await callApi('/v1/items?sku=CW-DOOR-2', { key })).json()) as { data: ItemView[] }).data[0]!;
    const patchedFromFile = await patched<ItemView>(`/v1/items/${fromFile.id}`, { unit: null }, '"1"');

    // Assess
    expect(skip).toMatchObject({ status: 'succeeded' });
    expect(update).toMatchObject({ status: 'succeeded' });
    const read = (await (await callApi(`/v1/items/${json.id}`, { key })).json()) as ItemView;
    expect(read).toMatchObject({ name: 'By file now', version: 2 });
    const [, byFile] = await eventsOf(['item.created', 'item.updated'], json.id);
    expect(byFile?.data).toMatchObject({ changedFields: ['name'], previous: { name: 'By JSON' } });
    expect(patchedFromFile).toMatchObject({ unit: 'ea', version: 2 });
  });
});

describe('POST and PATCH /v1/locations', () => {
  it('creates a location under a parent by code or by id, with ETag and version, and refuses a parent that makes a cycle with 400', async () => {
    // Act
    const warehouse = await created<LocationView>('/v1/locations', { code: 'CW-WH', name: 'Warehouse', type: 'warehouse' });
    const zone = await created<LocationView>('/v1/locations', { code: 'CW-Z', name: 'Zone', type: 'zone', parentId: warehouse.id });
    const bin = await created<LocationView>('/v1/locations', { code: 'CW-BIN', name: 'Bin', parentCode: 'CW-Z' });
    const cycle = await send('PATCH', `/v1/locations/${warehouse.id}`, { parentId: bin.id });
    const self = await send('PATCH', `/v1/locations/${warehouse.id}`, { parentCode: 'CW-WH' });
    const unknownParent = await send('POST', '/v1/locations', { code: 'CW-ORPHAN', name: 'Orphan', parentCode: 'CW-NOWHERE' });
    const both = await send('POST', '/v1/locations', { code: 'CW-BOTH', name: 'Both', parentCode: 'CW-Z', parentId: zone.id });
    const taken = await send('POST', '/v1/locations', { code: 'CW-BIN', name: 'Again' });

    // Assess
    expect(warehouse).toMatchObject({ type: 'warehouse', parentCode: null, status: 'active', version: 1 });
    expect(zone).toMatchObject({ parentCode: 'CW-WH' });
    expect(bin).toMatchObject({ type: 'bin', parentCode: 'CW-Z' });
    expect((await problem(cycle, 400, 'customer-api.validation.failed')).errors).toEqual([expect.objectContaining({ pointer: '/parentId', code: 'cycle' })]);
    expect((await problem(self, 400, 'customer-api.validation.failed')).errors).toEqual([expect.objectContaining({ pointer: '/parentCode', code: 'cycle' })]);
    expect((await problem(unknownParent, 400, 'customer-api.validation.failed')).errors).toEqual([
      expect.objectContaining({ pointer: '/parentCode', code: 'unknown-location' }),
    ]);
    await problem(both, 400, 'customer-api.validation.failed');
    expect(await problem(taken, 409, 'customer-api.inventory.code-taken')).toMatchObject({ locationId: bin.id });
    const read = await callApi(`/v1/locations/${bin.id}`, { key });
    expect(read.headers.get('etag')).toBe('"1"');
    expect(await auditKinds(bin.id)).toEqual(['location.created']);
  });

  it('moves, retypes and clears a parent by merge patch; If-Match stale is 412; nothing changed is 200 without an audit entry', async () => {
    // Arrange
    const top = await created<LocationView>('/v1/locations', { code: 'CW-TOP', name: 'Top', type: 'warehouse' });
    const leaf = await created<LocationView>('/v1/locations', { code: 'CW-LEAF', name: 'Leaf', parentCode: 'CW-TOP' });

    // Act
    const moved = await patched<LocationView>(`/v1/locations/${leaf.id}`, { parentCode: null, type: 'zone' }, '"1"');
    const stale = await send('PATCH', `/v1/locations/${leaf.id}`, { name: 'Stale' }, { ifMatch: '"1"' });
    const same = await patched<LocationView>(`/v1/locations/${leaf.id}`, { type: 'zone' });
    const back = await patched<LocationView>(`/v1/locations/${leaf.id}`, { parentId: top.id, type: null });

    // Assess
    expect(moved).toMatchObject({ parentCode: null, type: 'zone', version: 2 });
    expect(await problem(stale, 412, 'customer-api.precondition-failed')).toMatchObject({ version: 2 });
    expect(same.version).toBe(2);
    expect(back).toMatchObject({ parentCode: 'CW-TOP', type: 'bin', version: 3 });
    expect(await auditKinds(leaf.id)).toEqual(['location.updated', 'location.updated', 'location.created']);
  });

  it('is one door with the locations import kind: a location created over JSON is skipped or updated by an import', async () => {
    // Arrange
    const json = await created<LocationView>('/v1/locations', { code: 'CW-LDOOR', name: 'By JSON' });

    // Act
    const update = await importAndWait(key, { kind: 'locations', duplicateStrategy: 'update', file: csv('code,name,type', 'CW-LDOOR,By file,zone') });
    const fail = await importAndWait(key, { kind: 'locations', duplicateStrategy: 'fail', file: csv('code,name', 'CW-LDOOR,Again') });

    // Assess
    expect(update.status).toBe('succeeded');
    const read = (await (await callApi(`/v1/locations/${json.id}`, { key })).json()) as LocationView;
    expect(read).toMatchObject({ name: 'By file', type: 'zone', version: 2 });
    expect(fail).toMatchObject({ counts: { failed: 1 } });
  });
});
