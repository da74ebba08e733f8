import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newRecordId } from '../../lib/inventory/domain/records.ts';
import type { StockRecord } from '../../lib/inventory/domain/stock.ts';
import { documentClient, dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { INVENTORY_LIST_READ_BUDGET, InventoryReadStore } from '../../lib/inventory/store/inventory-reads.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { countDynamoDbRequests, type RequestCounter } from '../../local/dynamodb-requests.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { inventoryRecords } from '../support/imports.ts';

/**
 * The stock-record list on DynamoDB Local (docs/inventory.md "Reading inventory"): keys-only
 * entries written once, a page read as a Query of entries then a BatchGetItem of the records,
 * read-after-write across updates, `nonZero` decided on the records within the read budget, and
 * entries written as full copies by older code still listed by their record.
 */

const NOW = '2026-11-22T10:00:00.000Z';
const ACTOR = { type: 'system' as const, id: 'stock-record-list-tests' };
const ITEM = 'itm_listed';
const reads = () => new InventoryReadStore(tableName('inventory'));

let counter: RequestCounter;
beforeAll(() => {
  counter = countDynamoDbRequests(dynamoClient);
});
afterAll(() => counter.stop());

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

/** A stock record of ITEM at location `loc_<index>` (so the list orders them by index). */
function stockRecordAt(index: number, onHand: number, lot: string | null = null): StockRecord {
  const locationId = `loc_${String(index).padStart(6, '0')}`;
  return { id: newRecordId('stock-record'), itemId: ITEM, sku: 'LISTED', locationId, locationCode: `C-${index}`, lot, onHand, createdAt: NOW, updatedAt: NOW };
}

/** Creates the records, 24 to a transaction (a create takes 3 actions). */
async function createAll(organizationId: string, records: StockRecord[]): Promise<void> {
  const store = inventoryRecords();
  for (let start = 0; start < records.length; start += 24) {
    await commit(
      organizationId,
      records.slice(start, start + 24).flatMap((record) => store.createWrites(organizationId, 'stock-record', record)),
    );
  }
}

/** Every page of a list, following `last` while `more`. */
async function allPages(organizationId: string, filter: { nonZero?: boolean; lot?: string }, limit: number) {
  const pages: Array<{ quantities: number[]; more: boolean }> = [];
  let after: string | undefined;
  for (;;) {
    const page = await reads().stockRecords(organizationId, filter, after, limit);
    pages.push({ quantities: page.items.map((record) => record.onHand), more: page.more });
    if (!page.more) return pages;
    after = page.last;
  }
}

describe('the stock-record list', () => {
  it('shows the quantity of an update right after it commits, without rewriting the entries (read-after-write)', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const record = stockRecordAt(1, 5);
    await createAll(organizationId, [record]);

    // Act: the update writes the record alone, and the list is read right after
    const update = inventoryRecords().updateWrites(organizationId, 'stock-record', { ...record, onHand: 7, updatedAt: '2026-11-22T11:00:00.000Z' }, 1);
    await commit(organizationId, update);
    counter.reset();
    const page = await reads().stockRecords(organizationId, { itemId: ITEM }, undefined, 50);
    const requests = counter.operations();
    const nonZero = await reads().stockRecords(organizationId, { locationId: record.locationId, nonZero: true }, undefined, 50);

    // Assess
    expect(update).toHaveLength(1);
    expect(page).toEqual({ items: [{ ...record, onHand: 7, updatedAt: '2026-11-22T11:00:00.000Z' }], last: `ITEM#${ITEM}#${record.locationId}#`, more: false });
    expect(requests).toEqual(['Query', 'BatchGetItem']);
    expect(nonZero.items.map((stored) => stored.onHand)).toEqual([7]);
  });

  it('reads a full page of 200 with one Query and two BatchGetItems, and pages by cursor without skipping or repeating', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const records = Array.from({ length: 230 }, (_, index) => stockRecordAt(index, index + 1));
    await createAll(organizationId, records);

    // Act
    counter.reset();
    const first = await reads().stockRecords(organizationId, {}, undefined, 200);
    const requests = counter.operations();
    const second = await reads().stockRecords(organizationId, {}, first.last, 200);

    // Assess
    expect(requests).toEqual(['Query', 'BatchGetItem', 'BatchGetItem']);
    expect([...first.items, ...second.items].map((record) => record.id)).toEqual(records.map((record) => record.id));
    expect([first.more, second.more]).toEqual([true, false]);
  });

  it(`pages nonZero over more than ${INVENTORY_LIST_READ_BUDGET} records at 0: short pages with a cursor, then the records that hold stock`, async () => {
    // Prepare: 1,100 records at 0, then 3 holding stock
    const organizationId = uniqueOrganization();
    const zeros = Array.from({ length: 1100 }, (_, index) => stockRecordAt(index, 0));
    const held = [1100, 1101, 1102].map((index) => stockRecordAt(index, index));
    await createAll(organizationId, [...zeros, ...held]);

    // Act
    counter.reset();
    const first = await reads().stockRecords(organizationId, { nonZero: true }, undefined, 2);
    const firstRequests = counter.requests.length;
    const pages = await allPages(organizationId, { nonZero: true }, 2);

    // Assess: the first page examined the budget and found nothing, yet goes on
    expect(first).toEqual({ items: [], last: `ITEM#${ITEM}#loc_000999#`, more: true });
    expect(firstRequests).toBeLessThanOrEqual(6 + Math.ceil(INVENTORY_LIST_READ_BUDGET / 100) + 6);
    expect(pages.flatMap((page) => page.quantities)).toEqual([1100, 1101, 1102]);
    expect(pages.at(-1)?.more).toBe(false);
  });

  it('filters by lot on the entries and by quantity on the records together', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    await createAll(organizationId, [stockRecordAt(1, 0, 'L-1'), stockRecordAt(2, 3, 'L-1'), stockRecordAt(3, 4, 'L-2'), stockRecordAt(4, 5, 'L-1')]);

    // Act
    const lotOnly = await allPages(organizationId, { lot: 'L-1' }, 50);
    const both = await allPages(organizationId, { lot: 'L-1', nonZero: true }, 1);

    // Assess
    expect(lotOnly.flatMap((page) => page.quantities)).toEqual([0, 3, 5]);
    expect(both.flatMap((page) => page.quantities)).toEqual([3, 5]);
  });

  it('lists a record whose entries older code wrote as full copies, by the record as it is now', async () => {
    // Prepare: entries of schema version 1, copying the record at 0; the record itself holds 6
    const organizationId = uniqueOrganization();
    const record = stockRecordAt(1, 6, 'L-OLD');
    await createAll(organizationId, [record]);
    const stale = { ...record, onHand: 0 };
    for (const sk of [`ITEM#${ITEM}#${record.locationId}#L-OLD`, `LOC#${record.locationId}#${ITEM}#L-OLD`]) {
      const legacy = {
        pk: `ORG#${organizationId}#LIST#stock-record`,
        sk,
        entity: 'inventory-list-entry',
        schemaVersion: 1,
        organizationId,
        recordType: 'stock-record',
        id: record.id,
        quantity: 0,
        lot: 'L-OLD',
        record: stale,
      };
      await documentClient.send(new PutCommand({ TableName: tableName('inventory'), Item: legacy }));
    }

    // Act
    const listed = await reads().stockRecords(organizationId, { locationId: record.locationId }, undefined, 50);
    const nonZero = await reads().stockRecords(organizationId, { itemId: ITEM, lot: 'L-OLD', nonZero: true }, undefined, 50);
    const drawn = await inventoryRecords().stockRecordsAt(organizationId, [{ itemId: ITEM, locationId: record.locationId }]);

    // Assess
    expect(listed.items).toEqual([record]);
    expect(nonZero.items).toEqual([record]);
    expect(drawn).toEqual([record]);
  });
});
