import type { StockRecord } from '../../inventory/index.ts';
import type { StockChangePorts } from '../domain/changes/command.ts';
import { recordsOf } from '../domain/changes/references.ts';
import { InventoryStore } from '../../inventory/store/index.ts';
import { StockChangesStore } from './stock-changes-store.ts';
import { StockChangeStoreReads } from './stock-change-reads.ts';
import { StockStore } from './stock-store.ts';
import { stockStateByKeys, stockWritesOf } from './stock-writes.ts';
import { MAX_TRANSACTION_ITEMS } from '../../platform/dynamo/transaction-items.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * What a stock change over JSON reads and writes through (docs/inventory.md "Writing stock over
 * JSON"): its reads before the decision in two batches (lib/stock/store/stock-change-reads.ts), the stock reads and writes of the import pipeline (lib/stock/store/stock-writes.ts: the same
 * claims, records, totals and movements as an import row), items and locations by natural key or id, and the change itself.
 */
export function stockChangePorts(
  inventoryTable: string,
): StockChangePorts<StoreWrite> & { createRecords(organizationId: string, records: StockRecord[]): Promise<void> } {
  const inventory = new InventoryStore(inventoryTable);
  const stock = new StockStore(inventoryTable);
  const changes = new StockChangesStore(inventoryTable);
  return {
    createRecords: (organizationId, records) => changes.createRecords(inventory, organizationId, records),
    stock: {
      getByNaturalKeys: (organizationId, entity, naturalKeys) => stockStateByKeys(inventory, stock, organizationId, entity, naturalKeys),
      getItemsByIds: async (organizationId, ids) => recordsOf(await inventory.getByIds(organizationId, 'item', ids)),
      stockRecordsAt: (organizationId, places) => inventory.stockRecordsAt(organizationId, places),
      writesOf: (organizationId, write) => stockWritesOf(inventory, stock, organizationId, write),
    },
    reads: new StockChangeStoreReads(inventoryTable, inventory),
    changes,
    // The writer adds the sequence counter, one event batch (a change's events are far under its
    // 350,000 bytes), the audit entry and the idempotency record.
    maxWrites: MAX_TRANSACTION_ITEMS - 4,
  };
}
