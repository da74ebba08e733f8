import type { StockRecord } from '../../lib/inventory/domain/stock.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from './api.ts';
import { tableName, transactionWriter } from './events.ts';
import { inventoryRecords } from './imports.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import { A1, itemOf } from './stock-world.ts';

/** A world of many lots for the reservation tests whose operations run in slices (docs/inventory.md "Reservations and available stock"). */

export type TestActor = { type: 'api-key'; id: string };

/** The name of lot `index`: L000, L001, … (receipt order is name order). */
export const lotName = (index: number) => `L${String(index).padStart(3, '0')}`;

/** Commits `writes` in one transaction of the real writer, as `actor`. */
export async function commitWrites(organizationId: string, actor: TestActor, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

/** A fresh organization where MANY (tracked by lot) has `lots` lots of 2 at A1, stored a second apart from `storedAt`; its id. */
export async function manyLotsAtA1(lots: number, actor: TestActor, storedAt = '2026-11-01T08:00:00.000Z'): Promise<string> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const many = itemOf('itm_many', 'MANY', { trackingMode: 'lot' });
  const writes: StoreWrite[] = [
    ...store.createWrites(organizationId, 'location', A1),
    ...store.createWrites(organizationId, 'item', many),
    stock.itemStockWrite(organizationId, { itemId: many.id, onHand: 2 * lots, trackingMode: 'lot' }, null, 'lot'),
  ];
  for (let index = 0; index < lots; index += 1) {
    const at = new Date(Date.parse(storedAt) + index * 1000).toISOString();
    const record: StockRecord = {
      id: `stk_MANY_${lotName(index)}`,
      itemId: many.id,
      sku: many.sku,
      locationId: A1.id,
      locationCode: A1.code,
      lot: lotName(index),
      onHand: 2,
      createdAt: at,
      updatedAt: at,
    };
    writes.push(...store.createWrites(organizationId, 'stock-record', record));
  }
  for (let start = 0; start < writes.length; start += 90) await commitWrites(organizationId, actor, writes.slice(start, start + 90));
  return organizationId;
}
