import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { beforeAll, describe, expect, it } from 'vitest';
import { documentClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { inventoryRecordEntity, itemStockEntity } from '../../lib/inventory/store/entities.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { tableName } from '../support/events.ts';
import { importAndWait } from '../support/imports.ts';

/**
 * The three quantity states over HTTP (docs/inventory.md "Reading inventory"): `onHand`,
 * `reserved` and `available` on stock records and on items (totals), and
 * `GET /v1/items/{id}/availability`. The tests set `reserved` where it is stored, on a stock
 * record and on its item's total, as a reservation does, so the reads are tested apart from the
 * routes that write it. Every response is validated against docs/openapi.json.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

interface Page<T> {
  data: T[];
  page: { nextCursor: string | null };
}
type Listed = { id: string } & Record<string, unknown>;
interface States {
  onHand: number;
  reserved: number;
  available: number;
}
interface Availability extends States {
  itemId: string;
  sku: string;
  locations: Array<
    States & { locationId: string; locationCode: string; lotsTruncated: boolean; lots: Array<States & { lot: string | null; stockRecordId: string }> }
  >;
  truncated: boolean;
  nextAfterLocationId: string | null;
}

async function getJson<T>(key: string, path: string, status = 200): Promise<T> {
  const response = await callApi(path, { key });
  const body = (await response.json()) as T;
  expect(response.status, `${path}: ${JSON.stringify(body)}`).toBe(status);
  return body;
}

const succeeded = async (key: string, kind: string, file: string) =>
  expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file }, 60_000)).status).toBe('succeeded');

/** What a reservation writes: the record's `reserved` and its item total's, where they are stored. */
async function storeReserved(organizationId: string, stockRecordId: string, itemId: string, reserved: number, itemReserved: number): Promise<void> {
  const update = (key: Record<string, string>, holder: string, value: number) =>
    documentClient.send(
      new UpdateCommand({
        TableName: tableName('inventory'),
        Key: key,
        UpdateExpression: 'SET #holder.#reserved = :reserved, #version = #version + :one',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeNames: { '#holder': holder, '#reserved': 'reserved', '#version': 'version' },
        ExpressionAttributeValues: { ':reserved': value, ':one': 1 },
      }),
    );
  await update(inventoryRecordEntity.key({ organizationId, recordType: 'stock-record', id: stockRecordId }), 'record', reserved);
  await update(itemStockEntity.key({ organizationId, itemId }), 'itemStock', itemReserved);
}

let org: { key: string; organizationId: string; items: Record<string, string>; locations: Record<string, string>; records: Listed[] };
const recordAt = (sku: string, code: string, lot: string | null) =>
  org.records.find((record) => record.sku === sku && record.locationCode === code && record.lot === lot)!;

beforeAll(async () => {
  const { key, record } = await createTestKey();
  await succeeded(key, 'items', csv('sku,name,trackingMode', 'WIDGET,Blue widget,none', 'RESIN,Epoxy resin,lot', 'BARE,Never stocked,none'));
  await succeeded(key, 'locations', csv('code,name,type,parentCode', 'WH,Warehouse,warehouse,', 'A1,Bin A1,bin,WH', 'B1,Bin B1,bin,WH'));
  await succeeded(
    key,
    'po-receipts',
    csv(
      'poNumber,sku,locationCode,quantity,lot',
      'PO-1,WIDGET,A1,100,',
      'PO-1,WIDGET,B1,30,',
      'PO-1,RESIN,A1,10.5,L1',
      'PO-1,RESIN,A1,5,L2',
      'PO-1,RESIN,B1,7,L1',
    ),
  );
  const idsBy = async (path: string, field: string) =>
    Object.fromEntries((await getJson<Page<Listed>>(key, path)).data.map((listed) => [String(listed[field]), listed.id]));
  const items = await idsBy('/v1/items', 'sku');
  const locations = await idsBy('/v1/locations', 'code');
  org = { key, organizationId: record.organizationId, items, locations, records: [] };
  org.records = (await getJson<Page<Listed>>(key, '/v1/stock-records?limit=200')).data;
  // 40 of WIDGET at A1 and all 5 of RESIN L2 at A1 reserved.
  await storeReserved(org.organizationId, recordAt('WIDGET', 'A1', null).id, items.WIDGET!, 40, 40);
  await storeReserved(org.organizationId, recordAt('RESIN', 'A1', 'L2').id, items.RESIN!, 5, 5);
}, 120_000);

describe('stock records', () => {
  it('show onHand, reserved and available beside quantity (its alias), by id and in every list', async () => {
    // Act
    const widgetAtA1 = recordAt('WIDGET', 'A1', null).id;
    const one = await getJson<Listed>(org.key, `/v1/stock-records/${widgetAtA1}`);
    const ofWidget = await getJson<Page<Listed>>(org.key, `/v1/stock-records?itemId=${org.items.WIDGET}`);
    const atA1 = await getJson<Page<Listed>>(org.key, `/v1/stock-records?locationId=${org.locations.A1}&nonZero=true`);
    const lotL2 = await getJson<Page<Listed>>(org.key, '/v1/stock-records?lot=L2');

    // Assess
    expect(one).toMatchObject({ sku: 'WIDGET', locationCode: 'A1', quantity: 100, onHand: 100, reserved: 40, available: 60 });
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
    expect(ofWidget.data.map((record) => [record.locationCode, record.quantity, record.onHand, record.reserved, record.available]).sort()).toEqual([
      ['A1', 100, 100, 40, 60],
      ['B1', 30, 30, 0, 30],
    ]);
    expect(atA1.data.find((record) => record.id === widgetAtA1)).toEqual(one);
    expect(lotL2.data).toEqual([expect.objectContaining({ sku: 'RESIN', lot: 'L2', quantity: 5, onHand: 5, reserved: 5, available: 0 })]);
    for (const record of [...ofWidget.data, ...atA1.data]) expect(record.quantity).toBe(record.onHand);
  });
});

describe('items', () => {
  it('show their totals across locations, 0 for an item that never held stock, in the list and by id', async () => {
    // Act
    const all = await getJson<Page<Listed>>(org.key, '/v1/items');
    const searched = await getJson<Page<Listed>>(org.key, '/v1/items?q=resin');
    const widget = await getJson<Listed>(org.key, `/v1/items/${org.items.WIDGET}`);
    const bare = await getJson<Listed>(org.key, `/v1/items/${org.items.BARE}`);

    // Assess
    expect(all.data.map((item) => [item.sku, item.onHand, item.reserved, item.available])).toEqual([
      ['BARE', 0, 0, 0],
      ['RESIN', 22.5, 5, 17.5],
      ['WIDGET', 130, 40, 90],
    ]);
    expect(searched.data).toEqual([expect.objectContaining({ sku: 'RESIN', onHand: 22.5, reserved: 5, available: 17.5 })]);
    expect(widget).toEqual(all.data.find((item) => item.sku === 'WIDGET'));
    expect(widget).toMatchObject({ name: 'Blue widget', trackingMode: 'none', onHand: 130, reserved: 40, available: 90 });
    expect(bare).toMatchObject({ sku: 'BARE', onHand: 0, reserved: 0, available: 0 });
  });
});

describe('GET /v1/items/{id}/availability', () => {
  /** The locations as listed: by location id. */
  const byLocationId = (codes: string[]) => codes.sort((a, b) => (org.locations[a]! < org.locations[b]! ? -1 : 1));

  it('answers the totals and each location and lot with onHand, reserved and available', async () => {
    // Act
    const resin = await getJson<Availability>(org.key, `/v1/items/${org.items.RESIN}/availability`);

    // Assess
    const lot = (code: string, name: string, onHand: number, reserved: number) => ({
      lot: name,
      stockRecordId: recordAt('RESIN', code, name).id,
      onHand,
      reserved,
      available: onHand - reserved,
    });
    const locations = {
      A1: {
        locationId: org.locations.A1,
        locationCode: 'A1',
        onHand: 15.5,
        reserved: 5,
        available: 10.5,
        lotsTruncated: false,
        lots: [lot('A1', 'L1', 10.5, 0), lot('A1', 'L2', 5, 5)],
      },
      B1: { locationId: org.locations.B1, locationCode: 'B1', onHand: 7, reserved: 0, available: 7, lotsTruncated: false, lots: [lot('B1', 'L1', 7, 0)] },
    };
    expect(resin).toEqual({
      itemId: org.items.RESIN,
      sku: 'RESIN',
      onHand: 22.5,
      reserved: 5,
      available: 17.5,
      locations: byLocationId(['A1', 'B1']).map((code) => locations[code as 'A1' | 'B1']),
      truncated: false,
      nextAfterLocationId: null,
    });
  });

  it('gives an item without lots one lot entry per location, lot null; an item never stocked its zeros and no location', async () => {
    // Act
    const widget = await getJson<Availability>(org.key, `/v1/items/${org.items.WIDGET}/availability`);
    const bare = await getJson<Availability>(org.key, `/v1/items/${org.items.BARE}/availability`);

    // Assess
    expect(widget).toMatchObject({ onHand: 130, reserved: 40, available: 90, truncated: false });
    expect(
      widget.locations.map((location) => [
        location.locationCode,
        location.onHand,
        location.reserved,
        location.available,
        location.lots.map((lot) => [lot.lot, lot.stockRecordId]),
      ]),
    ).toEqual(
      byLocationId(['A1', 'B1']).map((code) =>
        code === 'A1' ? ['A1', 100, 40, 60, [[null, recordAt('WIDGET', 'A1', null).id]]] : ['B1', 30, 0, 30, [[null, recordAt('WIDGET', 'B1', null).id]]],
      ),
    );
    expect(bare).toEqual({
      itemId: org.items.BARE,
      sku: 'BARE',
      onHand: 0,
      reserved: 0,
      available: 0,
      locations: [],
      truncated: false,
      nextAfterLocationId: null,
    });
  });

  it('starts after afterLocationId, and shows a stock write at once', async () => {
    // Prepare
    const [first, second] = byLocationId(['A1', 'B1']);

    // Act
    const afterFirst = await getJson<Availability>(org.key, `/v1/items/${org.items.WIDGET}/availability?afterLocationId=${org.locations[first!]}`);
    const afterSecond = await getJson<Availability>(org.key, `/v1/items/${org.items.WIDGET}/availability?afterLocationId=${org.locations[second!]}`);
    await succeeded(org.key, 'stock-adjustments', csv('reference,sku,locationCode,quantityDelta,lot,reason', 'ADJ-AV,WIDGET,B1,-10,,damaged'));
    const afterWrite = await getJson<Availability>(org.key, `/v1/items/${org.items.WIDGET}/availability`);

    // Assess
    expect(afterFirst.locations.map((location) => location.locationCode)).toEqual([second]);
    expect(afterFirst).toMatchObject({ onHand: 130, truncated: false, nextAfterLocationId: null });
    expect(afterSecond.locations).toEqual([]);
    // (The item's total `reserved` is the stock writes' to keep: not asserted here.)
    expect(afterWrite.onHand).toBe(120);
    expect(afterWrite.locations.map((location) => [location.locationCode, location.onHand, location.reserved, location.available]).sort()).toEqual([
      ['A1', 100, 40, 60],
      ['B1', 20, 0, 20],
    ]);
  });

  it('answers 404 for an item of another organization, an unknown id and an id of another type; 400 for a bad afterLocationId', async () => {
    // Prepare
    const other = await createTestKey();

    // Act
    const foreign = await getJson<{ code: string }>(other.key, `/v1/items/${org.items.WIDGET}/availability`, 404);
    const unknown = await getJson<{ code: string }>(org.key, '/v1/items/itm_0000000000000000000000/availability', 404);
    const location = await getJson<{ code: string }>(org.key, `/v1/items/${org.locations.A1}/availability`, 404);
    const badAfter = await getJson<{ code: string; errors: unknown[] }>(org.key, `/v1/items/${org.items.WIDGET}/availability?afterLocationId=A1`, 400);

    // Assess
    for (const problem of [foreign, unknown, location]) expect(problem.code).toBe('customer-api.inventory.not-found');
    expect(badAfter).toMatchObject({ code: 'customer-api.validation.failed', errors: [expect.objectContaining({ name: 'afterLocationId' })] });
  });

  it('refuses a key without inventory:read with 403', async () => {
    // Prepare
    const { key } = await createTestKey({ organizationId: org.organizationId, scopes: ['boms:read'] });

    // Act
    const problem = await getJson<{ code: string; requiredScope: string }>(key, `/v1/items/${org.items.WIDGET}/availability`, 403);

    // Assess
    expect(problem).toMatchObject({ code: 'customer-api.auth.insufficient-scope', requiredScope: 'inventory:read' });
  });

  it('answers at most 1000 stock records, in whole locations, and goes on from nextAfterLocationId', async () => {
    // Prepare: 600 lots at each of two locations (1200 stock records; a receipt holds at most 1000 lines, so two POs)
    const { key } = await createTestKey();
    await succeeded(key, 'items', csv('sku,name,trackingMode', 'BIG,Many lots,lot'));
    await succeeded(key, 'locations', csv('code,name', 'X1,Bin X1', 'X2,Bin X2'));
    const lots = Array.from({ length: 600 }, (_, index) => `LOT-${String(index).padStart(4, '0')}`);
    await succeeded(
      key,
      'po-receipts',
      csv('poNumber,sku,locationCode,quantity,lot', ...lots.map((lot) => `PO-X1,BIG,X1,1,${lot}`), ...lots.map((lot) => `PO-X2,BIG,X2,2,${lot}`)),
    );
    const [item] = (await getJson<Page<Listed>>(key, '/v1/items?sku=BIG')).data;

    // Act
    const first = await getJson<Availability>(key, `/v1/items/${item!.id}/availability`);
    const second = await getJson<Availability>(key, `/v1/items/${item!.id}/availability?afterLocationId=${first.nextAfterLocationId}`);

    // Assess: the totals are all of it in both; the locations split between the two responses
    for (const response of [first, second]) expect(response).toMatchObject({ onHand: 1800, reserved: 0, available: 1800 });
    expect(first.locations).toHaveLength(1);
    expect(first).toMatchObject({ truncated: true, nextAfterLocationId: first.locations[0]!.locationId });
    expect(second).toMatchObject({ truncated: false, nextAfterLocationId: null });
    const listed = [...first.locations, ...second.locations];
    expect(listed.map((location) => [location.locationCode, location.lots.length, location.onHand, location.lotsTruncated]).sort()).toEqual([
      ['X1', 600, 600, false],
      ['X2', 600, 1200, false],
    ]);
    expect(listed[0]!.lots.map((lot) => lot.lot)).toEqual(lots);
  }, 120_000);
});
