import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import { adjustmentClaimKey } from '../../lib/stock/domain/claims.ts';
import { documentClient, dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { entityItem } from '../../lib/platform/dynamo/entity.ts';
import { inventoryRecordEntity, naturalKeyClaimEntity } from '../../lib/inventory/store/entities.ts';
import { StockChangeStoreReads } from '../../lib/stock/store/stock-change-reads.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { countDynamoDbRequests, type RequestCounter } from '../../local/dynamodb-requests.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { inventoryRecords } from '../support/imports.ts';
import { A1, B1, GADGET, WIDGET } from '../support/stock-world.ts';

/**
 * What a stock change over JSON reads before its transaction, on DynamoDB Local
 * (docs/inventory.md "Writing stock over JSON"): its items, locations and spelled-out claims in
 * one BatchGetItem; its stock records, totals and other claims in one more, plus one to read
 * records by id the first time a place is seen; records of older code still found; nothing of
 * another organization.
 */

const NOW = '2026-11-22T10:00:00.000Z';
const ACTOR = { type: 'system' as const, id: 'stock-change-reads-tests' };

let counter: RequestCounter;
beforeAll(() => {
  counter = countDynamoDbRequests(dynamoClient);
});
afterAll(() => counter.stop());

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

function recordOf(id: string, onHand: number): StockRecord {
  return { id, itemId: WIDGET.id, sku: WIDGET.sku, locationId: A1.id, locationCode: A1.code, lot: null, onHand, createdAt: NOW, updatedAt: NOW };
}

/** An organization with WIDGET, GADGET, A1, B1, WIDGET's record at A1, its total, and one applied claim. */
async function catalog(): Promise<{ organizationId: string; record: StockRecord; claimKey: string }> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const record = recordOf(`stk_${organizationId.slice(-12)}`, 8);
  const claimKey = adjustmentClaimKey('ORDER-1', WIDGET.sku, A1.code, null);
  await commit(organizationId, [
    ...store.createWrites(organizationId, 'item', WIDGET),
    ...store.createWrites(organizationId, 'item', GADGET),
    ...store.createWrites(organizationId, 'location', A1),
    ...store.createWrites(organizationId, 'location', B1),
    ...store.createWrites(organizationId, 'stock-record', record),
    stock.itemStockWrite(organizationId, { itemId: WIDGET.id, onHand: 8, trackingMode: 'none' }, null, 'none'),
    stock.entryWrite(organizationId, { key: claimKey, jobId: 'chg_earlier', movementIds: ['mov_1'], appliedAt: NOW }),
  ]);
  return { organizationId, record, claimKey };
}

const readsOf = () => new StockChangeStoreReads(tableName('inventory'), inventoryRecords());

describe('the reads of a stock change over JSON', () => {
  it('reads items and locations by natural key or id, with the claims the body spells out, in one BatchGetItem', async () => {
    // Prepare
    const { organizationId, claimKey } = await catalog();
    counter.reset();

    // Act
    const found = await readsOf().references(organizationId, {
      skus: [WIDGET.sku, WIDGET.sku],
      itemIds: [GADGET.id],
      codes: [A1.code],
      locationIds: [B1.id],
      claimKeys: [claimKey, adjustmentClaimKey('ORDER-2', WIDGET.sku, A1.code, null)],
    });

    // Assess
    expect(counter.operations()).toEqual(['BatchGetItem']);
    expect(found.itemsBySku.get(WIDGET.sku)).toEqual(WIDGET);
    expect(found.itemsById.get(GADGET.id)).toEqual(GADGET);
    expect(found.locationsByCode.get(A1.code)).toEqual(A1);
    expect(found.locationsById.get(B1.id)).toEqual(B1);
    expect([...found.claims.keys()]).toEqual([claimKey]);
  });

  it('answers unknown skus, codes and ids as absent, and ids of another type as unknown', async () => {
    // Prepare
    const { organizationId } = await catalog();

    // Act
    const found = await readsOf().references(organizationId, { skus: ['NOPE'], itemIds: [A1.id], codes: ['NOWHERE'], locationIds: [WIDGET.id], claimKeys: [] });

    // Assess
    expect([found.itemsBySku.size, found.itemsById.size, found.locationsByCode.size, found.locationsById.size]).toEqual([0, 0, 0, 0]);
  });

  it('reads stock records with totals and claims in one request more the first time a place is seen, and by id after: read-after-write both times', async () => {
    // Prepare
    const { organizationId, record, claimKey } = await catalog();
    const reads = readsOf();
    const naturalKey = stockRecordKey(WIDGET.id, A1.id, null);
    const unknown = stockRecordKey(WIDGET.id, B1.id, null);

    // Act
    counter.reset();
    const first = await reads.stock(organizationId, { recordKeys: [naturalKey, unknown], itemIds: [WIDGET.id, GADGET.id], claimKeys: [claimKey] });
    const firstRequests = counter.operations();
    await commit(organizationId, inventoryRecords().updateWrites(organizationId, 'stock-record', { ...record, onHand: 5 }, 1));
    counter.reset();
    const second = await reads.stock(organizationId, { recordKeys: [naturalKey], itemIds: [WIDGET.id], claimKeys: [] });
    const secondRequests = counter.operations();

    // Assess
    expect(firstRequests).toEqual(['BatchGetItem', 'BatchGetItem']);
    expect(first.records.get(naturalKey)).toEqual({ record, version: 1 });
    expect(first.records.has(unknown)).toBe(false);
    expect(first.totals.get(WIDGET.id)?.record.onHand).toBe(8);
    expect(first.totals.has(GADGET.id)).toBe(false);
    expect(first.claims.get(claimKey)?.jobId).toBe('chg_earlier');
    expect(secondRequests).toEqual(['BatchGetItem']);
    expect(second.records.get(naturalKey)).toEqual({ record: { ...record, onHand: 5 }, version: 2 });
  });

  it('finds a stock record and an item claimed by the claim items of older code, and nothing of another organization', async () => {
    // Prepare: a record with no claiming list entry, only a claim item
    const organizationId = uniqueOrganization();
    const record = recordOf(`stk_older_${organizationId.slice(-8)}`, 3);
    const naturalKey = stockRecordKey(WIDGET.id, A1.id, null);
    const table = tableName('inventory');
    await documentClient.send(
      new PutCommand({
        TableName: table,
        Item: entityItem(
          inventoryRecordEntity,
          { organizationId, recordType: 'stock-record', id: record.id },
          { organizationId, recordType: 'stock-record', id: record.id, naturalKey, version: 4, record },
        ),
      }),
    );
    await documentClient.send(
      new PutCommand({
        TableName: table,
        Item: entityItem(
          naturalKeyClaimEntity,
          { organizationId, recordType: 'stock-record', naturalKey },
          { organizationId, recordType: 'stock-record', naturalKey, id: record.id },
        ),
      }),
    );
    await documentClient.send(
      new PutCommand({
        TableName: table,
        Item: entityItem(
          inventoryRecordEntity,
          { organizationId, recordType: 'item', id: GADGET.id },
          { organizationId, recordType: 'item', id: GADGET.id, naturalKey: GADGET.sku, version: 1, record: GADGET },
        ),
      }),
    );
    await documentClient.send(
      new PutCommand({
        TableName: table,
        Item: entityItem(
          naturalKeyClaimEntity,
          { organizationId, recordType: 'item', naturalKey: GADGET.sku },
          { organizationId, recordType: 'item', naturalKey: GADGET.sku, id: GADGET.id },
        ),
      }),
    );
    const reads = readsOf();

    // Act
    const found = await reads.stock(organizationId, { recordKeys: [naturalKey], itemIds: [], claimKeys: [] });
    const item = await reads.references(organizationId, { skus: [GADGET.sku], itemIds: [], codes: [], locationIds: [], claimKeys: [] });
    const elsewhere = await reads.stock(uniqueOrganization(), { recordKeys: [naturalKey], itemIds: [], claimKeys: [] });

    // Assess
    expect(found.records.get(naturalKey)).toEqual({ record, version: 4 });
    expect(item.itemsBySku.get(GADGET.sku)).toEqual(GADGET);
    expect(elsewhere.records.size).toBe(0);
  });
});
