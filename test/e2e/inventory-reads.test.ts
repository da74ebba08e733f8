import { beforeAll, describe, expect, it } from 'vitest';
import { movementTimeOf } from '../../lib/inventory/domain/stock.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { importAndWait, itemsCsv, skusOf } from '../support/imports.ts';

/**
 * The inventory reads over HTTP (docs/inventory.md "Reading inventory"): every route and filter,
 * paging while records are written, reads right after an import succeeded, tenant isolation,
 * scope, limit and cursor refusals. Every response is validated against docs/openapi.json.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

interface Page<T> {
  data: T[];
  page: { nextCursor: string | null };
}
interface Listed {
  id: string;
  [field: string]: unknown;
}

async function getJson<T>(key: string, path: string, status = 200): Promise<T> {
  const response = await callApi(path, { key });
  const body = (await response.json()) as T;
  expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(status);
  return body;
}

const list = (key: string, path: string) => getJson<Page<Listed>>(key, path);

let org: {
  key: string;
  widget: string;
  resin: string;
  gadget: string;
  a1: string;
  b1: string;
  wh: string;
  adjustmentDone: Listed[];
  adjustmentMovement: Listed | undefined;
  adjustmentById: Listed;
};

beforeAll(async () => {
  const { key } = await createTestKey();
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded('items', csv('sku,name,trackingMode', 'WIDGET,Blue widget,none', 'RESIN,Epoxy resin,lot', 'GADGET,Gadget,none'));
  await succeeded('locations', csv('code,name,type,parentCode', 'WH,Warehouse,warehouse,', 'A1,Bin A1,bin,WH', 'B1,Bin B1,bin,WH'));
  // RESIN received earlier, dated with an offset and half a second: its movement occurs then, in UTC.
  await succeeded(
    'po-receipts',
    csv('poNumber,sku,locationCode,quantity,lot,receivedAt', 'PO-1,WIDGET,A1,100,,', 'PO-1,RESIN,A1,10,L1,2026-01-05T08:00:00.5+01:00'),
  );
  await succeeded('stock-transfers', csv('reference,sku,fromLocationCode,toLocationCode,quantity,lot', 'T-1,WIDGET,A1,B1,40,'));
  await succeeded('stock-adjustments', csv('reference,sku,locationCode,quantityDelta,lot,reason', 'ADJ-1,WIDGET,B1,-40,,damaged'));
  // Read right after the job reported `succeeded`: no wait, no retry.
  const adjustmentDone = (await list(key, '/v1/stock-records?nonZero=false')).data;
  const adjustmentMovement = (await list(key, '/v1/movements?limit=1')).data[0];
  const adjustmentById = await getJson<Listed>(key, `/v1/movements/${adjustmentMovement?.id ?? 'mov_missing000000'}`);
  const items = (await list(key, '/v1/items')).data;
  const locations = (await list(key, '/v1/locations')).data;
  const idOf = (records: Listed[], field: string, value: string) => records.find((record) => record[field] === value)?.id ?? '';
  org = {
    key,
    widget: idOf(items, 'sku', 'WIDGET'),
    resin: idOf(items, 'sku', 'RESIN'),
    gadget: idOf(items, 'sku', 'GADGET'),
    wh: idOf(locations, 'code', 'WH'),
    a1: idOf(locations, 'code', 'A1'),
    b1: idOf(locations, 'code', 'B1'),
    adjustmentDone,
    adjustmentMovement,
    adjustmentById,
  };
}, 120_000);

describe('items', () => {
  it('lists by sku, finds one by exact sku and by a case-insensitive substring of sku or name, and reads it by id', async () => {
    // Act
    const all = await list(org.key, '/v1/items');
    const bySku = await list(org.key, '/v1/items?sku=WIDGET');
    const byName = await list(org.key, '/v1/items?q=EPOXY');
    const bySkuPart = await list(org.key, '/v1/items?q=aDg');
    const unknown = await list(org.key, '/v1/items?sku=widget');
    const one = await getJson<Listed>(org.key, `/v1/items/${org.widget}`);

    // Assess
    expect(all.data.map((item) => item.sku)).toEqual(['GADGET', 'RESIN', 'WIDGET']);
    expect(all.page.nextCursor).toBeNull();
    expect(bySku.data).toEqual([expect.objectContaining({ id: org.widget, sku: 'WIDGET', name: 'Blue widget', trackingMode: 'none' })]);
    expect(byName.data.map((item) => item.sku)).toEqual(['RESIN']);
    expect(bySkuPart.data.map((item) => item.sku)).toEqual(['GADGET']);
    expect(unknown.data).toEqual([]);
    expect(one).toEqual(bySku.data[0]);
    // Totals across locations: 100 received at A1, 40 moved to B1 and written off there.
    expect(one).toMatchObject({ onHand: 60, reserved: 0, available: 60 });
    expect(all.data.map((item) => [item.sku, item.onHand])).toEqual([
      ['GADGET', 0],
      ['RESIN', 10],
      ['WIDGET', 60],
    ]);
  });
});

describe('locations', () => {
  it('lists by code, finds one by exact code and reads it by id', async () => {
    // Act
    const all = await list(org.key, '/v1/locations');
    const byCode = await list(org.key, '/v1/locations?code=A1');
    const one = await getJson<Listed>(org.key, `/v1/locations/${org.a1}`);

    // Assess
    expect(all.data.map((location) => location.code)).toEqual(['A1', 'B1', 'WH']);
    expect(byCode.data).toEqual([expect.objectContaining({ id: org.a1, code: 'A1', type: 'bin', parentCode: 'WH' })]);
    expect(one).toEqual(byCode.data[0]);
  });

  it('lists the children of a parent by parentId, with code and paging, and nothing for an unknown, foreign or childless parent', async () => {
    // Prepare
    const other = await createTestKey();

    // Act
    const children = await list(org.key, `/v1/locations?parentId=${org.wh}`);
    const firstChild = await list(org.key, `/v1/locations?parentId=${org.wh}&limit=1`);
    const secondChild = await list(org.key, `/v1/locations?parentId=${org.wh}&limit=1&cursor=${encodeURIComponent(firstChild.page.nextCursor ?? '')}`);
    const childByCode = await list(org.key, `/v1/locations?parentId=${org.wh}&code=B1`);
    const childless = await list(org.key, `/v1/locations?parentId=${org.a1}`);
    const unknown = await list(org.key, '/v1/locations?parentId=loc_0000000000000000000000');
    const notALocation = await list(org.key, `/v1/locations?parentId=${org.widget}`);
    const foreign = await list(other.key, `/v1/locations?parentId=${org.wh}`);
    const otherParentCursor = await getJson<{ code: string }>(
      org.key,
      `/v1/locations?parentId=${org.a1}&limit=1&cursor=${encodeURIComponent(firstChild.page.nextCursor ?? '')}`,
      400,
    );
    const badId = await getJson<{ code: string; errors: unknown[] }>(org.key, '/v1/locations?parentId=WH', 400);

    // Assess
    expect(children.data.map((location) => location.code)).toEqual(['A1', 'B1']);
    expect(children.data).toEqual([expect.objectContaining({ id: org.a1, parentCode: 'WH' }), expect.objectContaining({ id: org.b1, parentCode: 'WH' })]);
    expect(children.page.nextCursor).toBeNull();
    expect([...firstChild.data, ...secondChild.data].map((location) => location.code)).toEqual(['A1', 'B1']);
    expect(secondChild.page.nextCursor).toBeNull();
    expect(childByCode.data.map((location) => location.id)).toEqual([org.b1]);
    for (const empty of [childless, unknown, notALocation, foreign]) expect(empty).toEqual({ data: [], page: { nextCursor: null } });
    expect(otherParentCursor.code).toBe('customer-api.pagination.invalid-cursor');
    expect(badId).toMatchObject({ code: 'customer-api.validation.failed', errors: [expect.objectContaining({ name: 'parentId', code: 'invalid-format' })] });
  });
});

describe('stock records', () => {
  it('is read right after the import that changed it reports succeeded', () => {
    expect(org.adjustmentDone.find((record) => record.sku === 'WIDGET' && record.locationCode === 'B1')).toMatchObject({ quantity: 0 });
  });

  it('filters by item, location, lot and nonZero, and reads one by id', async () => {
    // Act
    const ofWidget = await list(org.key, `/v1/stock-records?itemId=${org.widget}`);
    const ofWidgetInStock = await list(org.key, `/v1/stock-records?itemId=${org.widget}&nonZero=true`);
    const atA1 = await list(org.key, `/v1/stock-records?locationId=${org.a1}`);
    const widgetAtA1 = await list(org.key, `/v1/stock-records?itemId=${org.widget}&locationId=${org.a1}`);
    const lotL1 = await list(org.key, '/v1/stock-records?lot=L1');
    const exact = await list(org.key, `/v1/stock-records?itemId=${org.resin}&locationId=${org.a1}&lot=L1`);
    const one = await getJson<Listed>(org.key, `/v1/stock-records/${exact.data[0]?.id ?? 'stk_missing000000'}`);

    // Assess
    expect(ofWidget.data.map((record) => [record.locationCode, record.quantity])).toEqual(
      [org.a1, org.b1].sort().map((id) => (id === org.a1 ? ['A1', 60] : ['B1', 0])),
    );
    expect(ofWidgetInStock.data.map((record) => [record.locationCode, record.quantity])).toEqual([['A1', 60]]);
    expect(atA1.data.map((record) => record.sku).sort()).toEqual(['RESIN', 'WIDGET']);
    expect(widgetAtA1.data).toEqual([
      expect.objectContaining({ itemId: org.widget, sku: 'WIDGET', locationId: org.a1, locationCode: 'A1', lot: null, quantity: 60 }),
    ]);
    expect(lotL1.data).toEqual([expect.objectContaining({ sku: 'RESIN', lot: 'L1', quantity: 10 })]);
    expect(exact.data).toHaveLength(1);
    expect(one).toEqual(exact.data[0]);
    expect(Object.keys(one).sort()).toEqual([
      'available',
      'id',
      'itemId',
      'locationCode',
      'locationId',
      'lot',
      'onHand',
      'quantity',
      'reserved',
      'sku',
      'updatedAt',
    ]);
    expect(one).toMatchObject({ quantity: 10, onHand: 10, reserved: 0, available: 10 });
  });
});

describe('movements', () => {
  it('lists newest first, filters by item, location, type and time, and reads one by id', async () => {
    // Act
    const all = await list(org.key, '/v1/movements');
    const ofResin = await list(org.key, `/v1/movements?itemId=${org.resin}`);
    const atB1 = await list(org.key, `/v1/movements?locationId=${org.b1}`);
    const transfers = await list(org.key, '/v1/movements?type=transfer');
    const times = all.data.map((movement) => String(movement.occurredAt));
    const newest = times[0] ?? '';
    const fromNewest = await list(org.key, `/v1/movements?fromUtc=${encodeURIComponent(newest)}`);
    const beforeNewest = await list(org.key, `/v1/movements?toUtc=${encodeURIComponent(newest)}`);
    const one = await getJson<Listed>(org.key, `/v1/movements/${transfers.data[0]?.id ?? 'mov_missing000000'}`);

    // Assess
    expect(all.data.map((movement) => movement.type)).toEqual(['adjustment', 'transfer', 'receipt', 'receipt']);
    expect(times).toEqual([...times].sort().reverse());
    expect(ofResin.data).toEqual([
      expect.objectContaining({ type: 'receipt', sku: 'RESIN', toLocationId: org.a1, fromLocationId: null, quantity: 10, lot: 'L1', reference: 'PO-1' }),
    ]);
    expect(atB1.data.map((movement) => movement.type)).toEqual(['adjustment', 'transfer']);
    expect(transfers.data).toEqual([expect.objectContaining({ fromLocationId: org.a1, toLocationId: org.b1, quantity: 40, reference: 'T-1' })]);
    expect(fromNewest.data.every((movement) => String(movement.occurredAt) >= newest)).toBe(true);
    expect(fromNewest.data.map((movement) => movement.type)).toContain('adjustment');
    expect(beforeNewest.data.every((movement) => String(movement.occurredAt) < newest)).toBe(true);
    expect(one).toEqual(transfers.data[0]);
  });

  it('reads a movement by id right after the import that made it reports succeeded', () => {
    expect(org.adjustmentMovement).toMatchObject({ type: 'adjustment', fromLocationId: org.b1, quantity: 40, reference: 'ADJ-1' });
    expect(org.adjustmentById).toEqual(org.adjustmentMovement);
  });

  it("gives every movement an id whose time is its occurredAt, a receipt's receivedAt in UTC to the millisecond", async () => {
    // Act
    const all = await list(org.key, '/v1/movements');

    // Assess
    expect(all.data.map((movement) => movementTimeOf(movement.id))).toEqual(all.data.map((movement) => movement.occurredAt));
    expect(all.data.at(-1)).toMatchObject({ sku: 'RESIN', occurredAt: '2026-01-05T07:00:00.500Z' });
  });
});

describe('paging', () => {
  it('pages through 250 items while new ones are created between pages: none skipped, none twice', async () => {
    // Prepare
    const { key } = await createTestKey();
    expect((await importAndWait(key, { kind: 'items', file: itemsCsv(250, 'PG') })).status).toBe('succeeded');

    // Act: 60 per page; after each page, items that sort before and after the position are created
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: Page<Listed> = await list(key, `/v1/items?limit=60${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      seen.push(...page.data.map((item) => String(item.sku)));
      cursor = page.page.nextCursor;
      pages += 1;
      expect((await importAndWait(key, { kind: 'items', file: csv('sku,name', `AA-${pages},Early ${pages}`, `ZZ-${pages},Late ${pages}`) })).status).toBe(
        'succeeded',
      );
    } while (cursor !== null);

    // Assess
    expect(new Set(seen).size).toBe(seen.length);
    const original = skusOf(250, 'PG');
    expect(original.filter((sku) => !seen.includes(sku))).toEqual([]);
    expect(seen.filter((sku) => sku.startsWith('PG-'))).toEqual(original);
  }, 120_000);
});

describe('tenancy, scope and refusals', () => {
  const ids = () => ({ items: org.widget, locations: org.a1, 'stock-records': String(org.adjustmentDone[0]?.id), movements: 'mov_01KJPX6ZT8MKYT6YPE0ZSHBVX3' });

  it('answers 404 for an id of another organization as for one that does not exist, and lists nothing of it', async () => {
    // Prepare
    const other = await createTestKey();
    const movement = (await list(org.key, '/v1/movements?limit=1')).data[0]?.id ?? '';

    // Act / Assess
    for (const [area, id] of Object.entries({ ...ids(), movements: movement })) {
      const foreign = await getJson<{ code: string; status: number }>(other.key, `/v1/${area}/${id}`, 404);
      const unknown = await getJson<{ code: string; status: number }>(other.key, `/v1/${area}/${id.slice(0, 4)}0000000000000000000000`, 404);
      expect(foreign.code).toBe('customer-api.inventory.not-found');
      expect({ ...foreign, traceId: undefined, instance: undefined }).toEqual({ ...unknown, traceId: undefined, instance: undefined });
    }
    for (const path of [
      '/v1/items',
      '/v1/items?sku=WIDGET',
      '/v1/locations?code=A1',
      `/v1/stock-records?itemId=${org.widget}`,
      `/v1/stock-records?locationId=${org.a1}`,
      '/v1/movements',
      `/v1/movements?itemId=${org.widget}`,
    ]) {
      expect((await list(other.key, path)).data, path).toEqual([]);
    }
  });

  it('answers 404 for an id of another record type', async () => {
    const problem = await getJson<{ code: string }>(org.key, `/v1/items/${org.a1}`, 404);
    expect(problem.code).toBe('customer-api.inventory.not-found');
  });

  it('refuses a key without inventory:read with 403 on every route', async () => {
    // Prepare
    const { key } = await createTestKey({ organizationId: undefined, scopes: ['boms:read'] });

    // Act / Assess
    for (const path of [
      '/v1/items',
      '/v1/locations',
      '/v1/stock-records',
      '/v1/movements',
      ...Object.entries(ids()).map(([area, id]) => `/v1/${area}/${id}`),
    ]) {
      const problem = await getJson<{ code: string; requiredScope: string }>(key, path, 403);
      expect(problem).toMatchObject({ code: 'customer-api.auth.insufficient-scope', requiredScope: 'inventory:read' });
    }
  });

  it.each(['0', '201', '007', '1.0', 'x'])('refuses limit=%s with 400', async (limit) => {
    for (const path of ['/v1/items', '/v1/locations', '/v1/stock-records', '/v1/movements']) {
      expect((await getJson<{ code: string }>(org.key, `${path}?limit=${limit}`, 400)).code).toBe('customer-api.validation.failed');
    }
  });

  it('refuses a tampered cursor, a cursor of another route, of other filters and of another organization with 400', async () => {
    // Prepare
    const cursor = (await list(org.key, '/v1/items?limit=1')).page.nextCursor ?? '';
    const other = await createTestKey();
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('A') ? 'B' : 'A'}`;

    // Act
    const refusals = [
      await getJson<{ code: string }>(org.key, `/v1/items?limit=1&cursor=${encodeURIComponent(tampered)}`, 400),
      await getJson<{ code: string }>(org.key, `/v1/locations?limit=1&cursor=${encodeURIComponent(cursor)}`, 400),
      await getJson<{ code: string }>(org.key, `/v1/movements?limit=1&cursor=${encodeURIComponent(cursor)}`, 400),
      await getJson<{ code: string }>(org.key, `/v1/items?limit=1&q=w&cursor=${encodeURIComponent(cursor)}`, 400),
      await getJson<{ code: string }>(other.key, `/v1/items?limit=1&cursor=${encodeURIComponent(cursor)}`, 400),
    ];

    // Assess
    expect(cursor).not.toBe('');
    expect(refusals.map((problem) => problem.code)).toEqual(Array(5).fill('customer-api.pagination.invalid-cursor'));
  });
});
