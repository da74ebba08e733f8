import { describe, expect, it } from 'vitest';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { Location } from '../../lib/inventory/domain/location.ts';
import { NaturalKeyTakenError, newRecordId } from '../../lib/inventory/domain/records.ts';
import {
  newMovementId,
  onHandMatchesLedger,
  sumQuantities,
  stockRecordKey,
  type Movement,
  type MovementRecord,
  type StockRecord,
} from '../../lib/inventory/domain/stock.ts';
import { entityItem } from '../../lib/platform/dynamo/entity.ts';
import { naturalKeyClaimEntity } from '../../lib/inventory/store/entities.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { inventoryRecords } from '../support/imports.ts';

/**
 * The inventory store on DynamoDB Local: records by id, by natural key and in batches, natural
 * keys claimed race-free, updates bound to their version and key, tenants kept apart, and the
 * movement ledger.
 */

const NOW = '2026-11-22T10:00:00.000Z';
const ACTOR = { type: 'system' as const, id: 'inventory-tests' };

function newItem(sku: string, name = `Item ${sku}`): Item {
  return {
    id: newRecordId('item'),
    sku,
    name,
    unit: 'ea',
    description: null,
    category: null,
    barcode: null,
    reorderPoint: null,
    trackingMode: 'none',
    createdAt: NOW,
    updatedAt: NOW,
  };
}

function newLocation(code: string): Location {
  return { id: newRecordId('location'), code, name: `Location ${code}`, type: 'bin', parentCode: null, createdAt: NOW, updatedAt: NOW };
}

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

async function createItems(organizationId: string, items: Item[]): Promise<void> {
  const store = inventoryRecords();
  // 2 actions per item (record, list entry claiming the sku): 45 items per transaction.
  for (let start = 0; start < items.length; start += 45) {
    await commit(
      organizationId,
      items.slice(start, start + 45).flatMap((item) => store.createWrites(organizationId, 'item', item)),
    );
  }
}

describe('inventory records by id and by natural key', () => {
  it('reads an item by id and by sku, with its version', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const item = newItem('BOLT-M6');
    await createItems(organizationId, [item]);

    // Act
    const byId = await inventoryRecords().getById(organizationId, 'item', item.id);
    const bySku = await inventoryRecords().getByNaturalKeys(organizationId, 'item', ['BOLT-M6', 'NOPE']);

    // Assess
    expect(byId).toEqual({ record: item, version: 1 });
    expect([...bySku]).toEqual([['BOLT-M6', { record: item, version: 1 }]]);
  });

  it('reads 250 ids in one call across 3 batches, leaving unknown ids out', async () => {
    // Prepare: 240 items; 10 ids that name nothing
    const organizationId = uniqueOrganization();
    const items = Array.from({ length: 240 }, (_, index) => newItem(`BATCH-${index}`));
    await createItems(organizationId, items);
    const unknown = Array.from({ length: 10 }, () => newRecordId('item'));
    const ids = [...items.map((item) => item.id), ...unknown].sort();

    // Act
    const found = await inventoryRecords().getByIds(organizationId, 'item', ids);

    // Assess
    expect(ids).toHaveLength(250);
    expect(found.size).toBe(240);
    for (const item of items) expect(found.get(item.id)?.record).toEqual(item);
    for (const id of unknown) expect(found.has(id)).toBe(false);
  });

  it('reads many natural keys in one call', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const items = Array.from({ length: 150 }, (_, index) => newItem(`NK-${index}`));
    await createItems(organizationId, items);

    // Act
    const found = await inventoryRecords().getByNaturalKeys(organizationId, 'item', [...items.map((item) => item.sku), 'NK-MISSING']);

    // Assess
    expect(found.size).toBe(150);
    expect(found.get('NK-149')?.record.id).toBe(items[149]!.id);
  });

  it('keeps tenants and record types apart: another organization or another type never sees the record', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const item = newItem('MINE');
    const location = newLocation('A-01');
    await createItems(organizationId, [item]);
    await commit(organizationId, inventoryRecords().createWrites(organizationId, 'location', location));

    // Act / Assess
    expect(await inventoryRecords().getById(uniqueOrganization(), 'item', item.id)).toBeUndefined();
    expect((await inventoryRecords().getByNaturalKeys(uniqueOrganization(), 'item', ['MINE'])).size).toBe(0);
    expect(await inventoryRecords().getById(organizationId, 'location', item.id)).toBeUndefined();
    expect(await inventoryRecords().getById(organizationId, 'item', location.id)).toBeUndefined();
    expect((await inventoryRecords().getById(organizationId, 'location', location.id))?.record).toEqual(location);
    // The same code may name an item's sku and a location: natural keys are per type.
    expect((await inventoryRecords().getByNaturalKeys(organizationId, 'location', ['A-01'])).get('A-01')?.record.id).toBe(location.id);
  });
});

describe('natural keys are unique by a conditional write', () => {
  it('gives exactly one item when two creates of one sku race; the other fails cleanly with NaturalKeyTakenError', async () => {
    // Prepare: two different items with the same sku
    const organizationId = uniqueOrganization();
    const contenders = [newItem('RACE-1', 'First'), newItem('RACE-1', 'Second')];

    // Act
    const outcomes = await Promise.allSettled(contenders.map((item) => commit(organizationId, inventoryRecords().createWrites(organizationId, 'item', item))));

    // Assess
    expect(outcomes.filter((outcome) => outcome.status === 'fulfilled')).toHaveLength(1);
    const rejected = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toBeInstanceOf(NaturalKeyTakenError);
    expect(rejected[0]!.reason).toMatchObject({ recordType: 'item', naturalKey: 'RACE-1' });
    const stored = await inventoryRecords().getByNaturalKeys(organizationId, 'item', ['RACE-1']);
    const winner = contenders[outcomes.findIndex((outcome) => outcome.status === 'fulfilled')]!;
    expect(stored.get('RACE-1')?.record).toEqual(winner);
    const loser = contenders.find((item) => item !== winner)!;
    expect(await inventoryRecords().getById(organizationId, 'item', loser.id)).toBeUndefined();
  });

  it('finds an item of older code by its claim item alone (no list entry), by sku and by id', async () => {
    // Prepare: stored as code before 2026-11-25 left it: the record and a claim item naming it
    const organizationId = uniqueOrganization();
    const item = newItem('OLD-1');
    const [record] = inventoryRecords().createWrites(organizationId, 'item', item);
    const claim = entityItem(
      naturalKeyClaimEntity,
      { organizationId, recordType: 'item', naturalKey: item.sku },
      { organizationId, recordType: 'item', naturalKey: item.sku, id: item.id },
    );
    await commit(organizationId, [record!, { item: { Put: { TableName: tableName('inventory'), Item: claim } } }]);

    // Act
    const found = await inventoryRecords().getByNaturalKeys(organizationId, 'item', [item.sku]);

    // Assess
    expect(found.get(item.sku)).toEqual({ record: item, version: 1 });
  });

  it('commits an update only at the version it was read at, and never under another natural key', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const item = newItem('VER-1');
    await createItems(organizationId, [item]);
    const store = inventoryRecords();

    // Act
    await commit(organizationId, store.updateWrites(organizationId, 'item', { ...item, name: 'Renamed' }, 1));
    // Each outcome is settled before the next starts, so no rejection goes unobserved.
    const stale = await commit(organizationId, store.updateWrites(organizationId, 'item', { ...item, name: 'Stale' }, 1)).catch((error: unknown) => error);
    const rekeyed = await commit(organizationId, store.updateWrites(organizationId, 'item', { ...item, sku: 'VER-2' }, 2)).catch((error: unknown) => error);

    // Assess
    expect(stale).toMatchObject({ status: 409 });
    expect(rekeyed).toMatchObject({ status: 409 });
    expect(await store.getById(organizationId, 'item', item.id)).toEqual({ record: { ...item, name: 'Renamed' }, version: 2 });
    expect((await store.getByNaturalKeys(organizationId, 'item', ['VER-2'])).size).toBe(0);
  });
});

describe('stock records and the movement ledger', () => {
  it('finds a stock record by item × location × lot, and its on-hand equals the sum of its movements', async () => {
    // Prepare: a stock record of 12.5 after three movements
    const organizationId = uniqueOrganization();
    const item = newItem('OIL-46');
    const location = newLocation('TANK-1');
    const store = inventoryRecords();
    const stock: StockRecord = {
      id: newRecordId('stock-record'),
      itemId: item.id,
      sku: item.sku,
      locationId: location.id,
      locationCode: location.code,
      lot: 'L-2026-11',
      onHand: 12.5,
      createdAt: NOW,
      updatedAt: NOW,
    };
    const adjustment = (quantity: number, second: number): MovementRecord => {
      const occurredAt = `2026-11-22T10:00:0${second}.000Z`;
      const side = { fromLocationId: quantity < 0 ? location.id : null, toLocationId: quantity > 0 ? location.id : null };
      return {
        id: newMovementId(occurredAt),
        type: 'adjustment',
        itemId: item.id,
        sku: item.sku,
        ...side,
        quantity: Math.abs(quantity),
        lot: 'L-2026-11',
        reference: null,
        occurredAt,
      };
    };
    const adjustments = [10, 3.1, -0.6].map((delta, index) => ({ delta, movement: adjustment(delta, index + 1) }));
    const movements = adjustments.map(({ delta, movement: { id, type, reference, occurredAt } }): Movement => ({
      id,
      stockRecordId: stock.id,
      quantity: delta,
      type,
      reference,
      occurredAt,
    }));
    await createItems(organizationId, [item]);
    await commit(organizationId, [
      ...store.createWrites(organizationId, 'location', location),
      ...store.createWrites(organizationId, 'stock-record', stock),
      ...adjustments.map(({ delta, movement }) => store.recordMovementWrite(organizationId, movement, [{ stockRecordId: stock.id, quantity: delta }])),
    ]);

    // Act
    const byKey = await store.getByNaturalKeys(organizationId, 'stock-record', [
      stockRecordKey(item.id, location.id, 'L-2026-11'),
      stockRecordKey(item.id, location.id, null),
    ]);
    const ledger = await store.movementsOf(organizationId, stock.id);

    // Assess
    expect([...byKey.keys()]).toEqual([stockRecordKey(item.id, location.id, 'L-2026-11')]);
    expect(ledger).toEqual(movements);
    expect(sumQuantities(ledger.map((entry) => entry.quantity))).toBe(12.5);
    expect(onHandMatchesLedger(stock, ledger)).toBe(true);
    expect(onHandMatchesLedger({ ...stock, onHand: 12.4 }, ledger)).toBe(false);
  });
});
