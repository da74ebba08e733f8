import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { createInventoryClient, createItem, createLocation, updateItem, updateLocation, ApiProblemError } from '../../client/index.ts';
import { baseUrl, callApi, createTestKey } from '../support/api.ts';
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

function stock(path: string, body: unknown) {
  return send('POST', path, body);
}

async function quantityOf(itemId: string): Promise<number> {
  return ((await (await callApi(`/v1/items/${itemId}`, { key })).json()) as ItemView).onHand;
}

describe('renames', () => {
  it('moves an item to a new sku: the old one is freed, later imports and stock writes by it get unknown sku, and item.updated names sku', async () => {
    // Arrange
    await created<LocationView>('/v1/locations', { code: 'CW-RN-A', name: 'Rename bin' });
    const item = await created<ItemView>('/v1/items', { sku: 'CW-OLD', name: 'Renamed' });
    await created('/v1/stock/receipts', { poNumber: 'CW-RN-PO', lines: [{ sku: 'CW-OLD', locationCode: 'CW-RN-A', quantity: 5 }] });

    // Act
    const renamed = await patched<ItemView>(`/v1/items/${item.id}`, { sku: 'CW-NEW' });
    const byOldSku = await stock('/v1/stock/adjustments', {
      reference: 'CW-RN-1',
      lines: [{ sku: 'CW-OLD', locationCode: 'CW-RN-A', quantityDelta: 1, expectedQuantity: null }],
    });
    const byNewSku = await stock('/v1/stock/adjustments', {
      reference: 'CW-RN-2',
      lines: [{ sku: 'CW-NEW', locationCode: 'CW-RN-A', quantityDelta: 1, expectedQuantity: 5 }],
    });
    const imported = await importAndWait(key, {
      kind: 'po-receipts',
      duplicateStrategy: 'fail',
      file: csv('poNumber,sku,locationCode,quantity', 'CW-RN-PO2,CW-OLD,CW-RN-A,1'),
    });
    const reused = await created<ItemView>('/v1/items', { sku: 'CW-OLD', name: 'A new item with the freed sku' });
    const takenRename = await send('PATCH', `/v1/items/${item.id}`, { sku: 'CW-OLD' });

    // Assess
    expect(renamed).toMatchObject({ sku: 'CW-NEW', version: 2, onHand: 5 });
    const unknown = await problem(byOldSku, 400, 'customer-api.validation.failed');
    expect(unknown.errors).toEqual([expect.objectContaining({ pointer: '/lines/0/sku', code: 'unknown-item' })]);
    expect(byNewSku.status).toBe(201);
    expect(imported.counts).toMatchObject({ failed: 1 });
    expect(reused.id).not.toBe(item.id);
    expect(await problem(takenRename, 409, 'customer-api.inventory.sku-taken')).toMatchObject({ itemId: reused.id });
    const bySku = ((await (await callApi('/v1/items?sku=CW-NEW', { key })).json()) as { data: ItemView[] }).data;
    expect(bySku.map((found) => found.id)).toEqual([item.id]);
    const updated = (await eventsOf(['item.updated'], item.id))[0];
    expect(updated?.data).toMatchObject({ changedFields: ['sku'], previous: { sku: 'CW-OLD' } });
  });

  it('races a rename with a JSON stock write by the old sku: the write either commits before the rename or gets unknown sku, never after it', async () => {
    // Arrange
    await created<LocationView>('/v1/locations', { code: 'CW-RACE-A', name: 'Race bin' });
    const outcomes: string[] = [];
    for (let round = 0; round < 6; round += 1) {
      const item = await created<ItemView>('/v1/items', { sku: `CW-RR-${round}`, name: 'Racing' });
      await created('/v1/stock/receipts', { poNumber: `CW-RR-PO-${round}`, lines: [{ sku: `CW-RR-${round}`, locationCode: 'CW-RACE-A', quantity: 10 }] });

      // Act
      const [rename, write] = await Promise.all([
        send('PATCH', `/v1/items/${item.id}`, { sku: `CW-RR-${round}-NEW` }),
        stock('/v1/stock/adjustments', {
          reference: `CW-RR-ADJ-${round}`,
          lines: [{ sku: `CW-RR-${round}`, locationCode: 'CW-RACE-A', quantityDelta: -1, expectedQuantity: null }],
        }),
      ]);

      // Assess
      expect(rename.status).toBe(200);
      const body = (await write.json()) as { code?: string; lines?: Array<{ sku: string }> };
      expect([201, 400]).toContain(write.status);
      const events = await eventsOf(['item.updated'], item.id);
      expect(events).toHaveLength(1);
      if (write.status === 201) {
        // Committed before the rename: it carries the old sku, and the stock it took is there.
        expect(body.lines?.[0]?.sku).toBe(`CW-RR-${round}`);
        expect(await quantityOf(item.id)).toBe(9);
        outcomes.push('before');
      } else {
        expect(body.code).toBe('customer-api.validation.failed');
        expect(await quantityOf(item.id)).toBe(10);
        outcomes.push('unknown');
      }
    }
    expect(outcomes).toHaveLength(6);
  });

  it('renames a location code; a location that encloses others keeps its code (409 location-has-children)', async () => {
    // Arrange
    const parent = await created<LocationView>('/v1/locations', { code: 'CW-PARENT', name: 'Parent' });
    const lone = await created<LocationView>('/v1/locations', { code: 'CW-LONE', name: 'Lone' });
    await created<LocationView>('/v1/locations', { code: 'CW-CHILD', name: 'Child', parentId: parent.id });

    // Act
    const renamed = await patched<LocationView>(`/v1/locations/${lone.id}`, { code: 'CW-LONE-2' });
    const refused = await send('PATCH', `/v1/locations/${parent.id}`, { code: 'CW-PARENT-2' });
    const taken = await send('PATCH', `/v1/locations/${lone.id}`, { code: 'CW-CHILD' });
    const freed = await created<LocationView>('/v1/locations', { code: 'CW-LONE', name: 'Takes the freed code' });

    // Assess
    expect(renamed).toMatchObject({ code: 'CW-LONE-2', version: 2 });
    await problem(refused, 409, 'customer-api.inventory.location-has-children');
    await problem(taken, 409, 'customer-api.inventory.code-taken');
    expect(freed.id).not.toBe(lone.id);
  });
});

describe('archive', () => {
  it('hides an archived item from the list unless includeArchived=true, keeps it readable by id, refuses stock in (409, a row error in imports) and lets stock leave; PATCH unarchives', async () => {
    // Arrange
    await created<LocationView>('/v1/locations', { code: 'CW-AR-A', name: 'Archive bin' });
    await created<LocationView>('/v1/locations', { code: 'CW-AR-B', name: 'Archive bin B' });
    const item = await created<ItemView>('/v1/items', { sku: 'CW-ARCH', name: 'Archived soon' });
    await created('/v1/stock/receipts', { poNumber: 'CW-AR-PO', lines: [{ sku: 'CW-ARCH', locationCode: 'CW-AR-A', quantity: 10 }] });

    // Act
    const archived = await patched<ItemView>(`/v1/items/${item.id}`, { status: 'archived' });
    const listed = ((await (await callApi('/v1/items?sku=CW-ARCH', { key })).json()) as { data: ItemView[] }).data;
    const listedAll = ((await (await callApi('/v1/items?sku=CW-ARCH&includeArchived=true', { key })).json()) as { data: ItemView[] }).data;
    const byId = await callApi(`/v1/items/${item.id}`, { key });
    const receipt = await stock('/v1/stock/receipts', { poNumber: 'CW-AR-PO2', lines: [{ sku: 'CW-ARCH', locationCode: 'CW-AR-A', quantity: 1 }] });
    const increase = await stock('/v1/stock/adjustments', {
      reference: 'CW-AR-UP',
      lines: [{ sku: 'CW-ARCH', locationCode: 'CW-AR-A', quantityDelta: 1, expectedQuantity: null }],
    });
    const transfer = await stock('/v1/stock/transfers', {
      reference: 'CW-AR-T',
      lines: [{ sku: 'CW-ARCH', fromLocationCode: 'CW-AR-A', toLocationCode: 'CW-AR-B', quantity: 1, expectedQuantity: null }],
    });
    const reservation = await stock('/v1/reservations', { reference: 'CW-AR-RES', lines: [{ sku: 'CW-ARCH', locationCode: 'CW-AR-A', quantity: 1 }] });
    const decrease = await stock('/v1/stock/adjustments', {
      reference: 'CW-AR-DOWN',
      lines: [{ sku: 'CW-ARCH', locationCode: 'CW-AR-A', quantityDelta: -2, expectedQuantity: 10 }],
    });
    const imported = await importAndWait(key, {
      kind: 'po-receipts',
      duplicateStrategy: 'fail',
      file: csv('poNumber,sku,locationCode,quantity', 'CW-AR-PO3,CW-ARCH,CW-AR-A,1'),
    });
    const unarchived = await patched<ItemView>(`/v1/items/${item.id}`, { status: 'active' });
    const receiptAfter = await stock('/v1/stock/receipts', { poNumber: 'CW-AR-PO4', lines: [{ sku: 'CW-ARCH', locationCode: 'CW-AR-A', quantity: 1 }] });

    // Assess
    expect(archived).toMatchObject({ status: 'archived', version: 2, onHand: 10 });
    expect(listed).toEqual([]);
    expect(listedAll.map((found) => [found.id, found.status])).toEqual([[item.id, 'archived']]);
    expect(byId.status).toBe(200);
    expect(await problem(receipt, 409, 'customer-api.inventory.item-archived')).toMatchObject({ lines: [{ line: 0 }] });
    await problem(increase, 409, 'customer-api.inventory.item-archived');
    await problem(transfer, 409, 'customer-api.inventory.item-archived');
    await problem(reservation, 409, 'customer-api.inventory.item-archived');
    expect(decrease.status).toBe(201);
    expect(imported.counts).toMatchObject({ failed: 1 });
    expect(unarchived).toMatchObject({ status: 'active', version: 3, onHand: 8 });
    expect(receiptAfter.status).toBe(201);
    const [archiving, unarchiving] = await eventsOf(['item.updated'], item.id);
    expect(archiving?.data).toMatchObject({ changedFields: ['status'], previous: { status: 'active' }, item: { status: 'archived' } });
    expect(unarchiving?.data).toMatchObject({ changedFields: ['status'], previous: { status: 'archived' } });
    expect((unarchiving?.data.item as Record<string, unknown>).status).toBeUndefined();
  });

  it('refuses stock into an archived location (409 location-archived) and lists it only with includeArchived=true', async () => {
    // Arrange
    const from = await created<LocationView>('/v1/locations', { code: 'CW-LA-FROM', name: 'From' });
    const to = await created<LocationView>('/v1/locations', { code: 'CW-LA-TO', name: 'To' });
    await created<ItemView>('/v1/items', { sku: 'CW-LA-ITEM', name: 'Moves' });
    await created('/v1/stock/receipts', { poNumber: 'CW-LA-PO', lines: [{ sku: 'CW-LA-ITEM', locationCode: 'CW-LA-FROM', quantity: 4 }] });

    // Act
    await patched<LocationView>(`/v1/locations/${to.id}`, { status: 'archived' });
    await patched<LocationView>(`/v1/locations/${from.id}`, { status: 'archived' });
    const into = await stock('/v1/stock/receipts', { poNumber: 'CW-LA-PO2', lines: [{ sku: 'CW-LA-ITEM', locationCode: 'CW-LA-TO', quantity: 1 }] });
    const out = await stock('/v1/stock/adjustments', {
      reference: 'CW-LA-OUT',
      lines: [{ sku: 'CW-LA-ITEM', locationCode: 'CW-LA-FROM', quantityDelta: -1, expectedQuantity: 4 }],
    });
    const listed = ((await (await callApi('/v1/locations?code=CW-LA-TO', { key })).json()) as { data: LocationView[] }).data;
    const listedAll = ((await (await callApi('/v1/locations?code=CW-LA-TO&includeArchived=true', { key })).json()) as { data: LocationView[] }).data;

    // Assess
    await problem(into, 409, 'customer-api.inventory.location-archived');
    expect(out.status).toBe(201);
    expect(listed).toEqual([]);
    expect(listedAll.map((found) => found.status)).toEqual(['archived']);
  });

  it('refuses a trackingMode change while the item holds stock (409 tracking-change-with-stock) and allows it at 0', async () => {
    // Arrange
    await created<LocationView>('/v1/locations', { code: 'CW-TM-A', name: 'Tracking bin' });
    const item = await created<ItemView>('/v1/items', { sku: 'CW-TM', name: 'Tracking' });
    await created('/v1/stock/receipts', { poNumber: 'CW-TM-PO', lines: [{ sku: 'CW-TM', locationCode: 'CW-TM-A', quantity: 2 }] });

    // Act
    const refused = await send('PATCH', `/v1/items/${item.id}`, { trackingMode: 'lot' });
    await created('/v1/stock/adjustments', {
      reference: 'CW-TM-OUT',
      lines: [{ sku: 'CW-TM', locationCode: 'CW-TM-A', quantityDelta: -2, expectedQuantity: 2 }],
    });
    const allowed = await patched<ItemView>(`/v1/items/${item.id}`, { trackingMode: 'lot' });

    // Assess
    expect(await problem(refused, 409, 'customer-api.inventory.tracking-change-with-stock')).toMatchObject({ onHand: 2 });
    expect(allowed).toMatchObject({ trackingMode: 'lot', version: 2 });
  });
});

describe('the typed client', () => {
  it('createItem, updateItem with ifMatch, createLocation and updateLocation; a stale ifMatch is an ApiProblemError with the version', async () => {
    // Arrange
    const client = createInventoryClient({ baseUrl: baseUrl(), apiKey: key });

    // Act
    const item = await createItem(client, { sku: 'CW-CLIENT', name: 'Typed' });
    const changed = await updateItem(client, item.id, { barcode: '123', reorderPoint: null }, { ifMatch: item.version });
    const stale = await updateItem(client, item.id, { name: 'Stale' }, { ifMatch: '"1"' }).catch((error: unknown) => error);
    const location = await createLocation(client, { code: 'CW-CLIENT-L', name: 'Typed bin' });
    const archived = await updateLocation(client, location.id, { status: 'archived' }, { ifMatch: 1 });

    // Assess
    expect(changed).toMatchObject({ barcode: '123', version: 2 });
    expect(stale).toBeInstanceOf(ApiProblemError);
    expect((stale as ApiProblemError).code).toBe('customer-api.precondition-failed');
    expect(archived).toMatchObject({ status: 'archived', version: 2 });
  });
});

describe('archive: counts, builds and the limits', () => {
  it('refuses a count that raises an archived item’s stock and a build whose output is archived (409 item-archived); a count down still applies', async () => {
    // Arrange
    await created<LocationView>('/v1/locations', { code: 'CW-AB-A', name: 'Build bin' });
    const target = await created<ItemView>('/v1/items', { sku: 'CW-AB-KIT', name: 'Kit' });
    const part = await created<ItemView>('/v1/items', { sku: 'CW-AB-PART', name: 'Part' });
    await created('/v1/stock/receipts', { poNumber: 'CW-AB-PO', lines: [{ sku: 'CW-AB-PART', locationCode: 'CW-AB-A', quantity: 10 }] });
    const bom = await created<{ id: string; code: string }>('/v1/boms', {
      code: 'CW-AB-BOM',
      name: 'Kit of parts',
      targetItemId: target.id,
      status: 'active',
      components: [{ itemId: part.id, quantity: 1 }],
    });
    await patched<ItemView>(`/v1/items/${target.id}`, { status: 'archived' });
    await patched<ItemView>(`/v1/items/${part.id}`, { status: 'archived' });

    // Act
    const build = await send('POST', '/v1/builds', { buildReference: 'CW-AB-B1', bomId: bom.id, quantity: 1, locationCode: 'CW-AB-A' });
    const countUp = await send('POST', '/v1/stock/counts', {
      countReference: 'CW-AB-C1',
      locationCode: 'CW-AB-A',
      lines: [{ sku: 'CW-AB-PART', countedQuantity: 12, expectedQuantity: 10 }],
    });
    const countDown = await send('POST', '/v1/stock/counts', {
      countReference: 'CW-AB-C2',
      locationCode: 'CW-AB-A',
      lines: [{ sku: 'CW-AB-PART', countedQuantity: 8, expectedQuantity: 10 }],
    });

    // Assess
    await problem(build, 409, 'customer-api.inventory.item-archived');
    await problem(countUp, 409, 'customer-api.inventory.item-archived');
    expect(countDown.status).toBe(201);
    expect(await quantityOf(part.id)).toBe(8);
  });

  it('answers 413 to a body over the JSON limit and 403 to a PATCH without inventory:write', async () => {
    // Arrange
    const item = await created<ItemView>('/v1/items', { sku: 'CW-LIMIT', name: 'Limits' });
    const { key: readOnly } = await createTestKey({ scopes: ['inventory:read', 'stock:write'] });

    // Act
    const huge = await send('POST', '/v1/items', { sku: 'CW-HUGE', name: 'Huge', description: 'x'.repeat(2_000_000) });
    const forbidden = await send('PATCH', `/v1/items/${item.id}`, { name: 'No' }, { key: readOnly });

    // Assess
    await problem(huge, 413, 'customer-api.request.too-large');
    await problem(forbidden, 403, 'customer-api.auth.insufficient-scope');
  });
});
