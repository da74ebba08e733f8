import type { StockChangeWrite } from '../domain/changes/command.ts';
import type { VersionedRecord } from '../../inventory/index.ts';
import type { InventoryStore } from '../../inventory/store/index.ts';
import type { StockStore } from './stock-store.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * The storage actions of what stock flows write (docs/inventory.md "The stock model"): stock
 * records, movements, item totals, documents, their checks and the claims of applied rows. An
 * import row and a JSON stock line both write through here (lib/imports/store/import-records.ts,
 * lib/stock/store/stock-change-ports.ts), so the two doors store exactly the same items.
 */
export function stockWritesOf(inventory: InventoryStore, stock: StockStore, organizationId: string, write: StockChangeWrite): StoreWrite[] {
  switch (write.op) {
    case 'create':
      return inventory.createWrites(organizationId, write.entity, write.record);
    case 'update':
      return inventory.updateWrites(organizationId, write.entity, write.record, write.expectedVersion, write.previousOnHand);
    case 'record-movement':
      return [inventory.recordMovementWrite(organizationId, write.movement, write.legs)];
    case 'put-item-stock':
      return [stock.itemStockWrite(organizationId, write.itemStock, write.expectedVersion, write.trackingModeRead)];
    case 'put-document':
      return stock.documentWrites(organizationId, write.document, write.expectedVersion);
    case 'claim-entry':
      return [stock.entryWrite(organizationId, write.entry)];
    case 'check-item-stock':
      return [stock.itemStockCheck(organizationId, write.itemId, write.expectedVersion)];
    case 'check-stock-record':
      return [inventory.unchangedCheck(organizationId, 'stock-record', write.record, write.expectedVersion)];
    case 'check-bom':
      throw new Error('A stock change over JSON rests on no BOM');
  }
}

/** Stored stock state by natural key: stock records, item totals, documents and claims. */
export function stockStateByKeys(
  inventory: InventoryStore,
  stock: StockStore,
  organizationId: string,
  entity: 'stock-record' | 'item-stock' | 'stock-document' | 'stock-entry',
  naturalKeys: Iterable<string>,
): Promise<Map<string, VersionedRecord<unknown>>> {
  switch (entity) {
    case 'stock-entry':
      return stock.getEntries(organizationId, naturalKeys);
    case 'item-stock':
      return stock.getItemStock(organizationId, naturalKeys);
    case 'stock-document':
      return stock.getDocuments(organizationId, naturalKeys);
    case 'stock-record':
      return inventory.getByNaturalKeys(organizationId, 'stock-record', naturalKeys);
  }
}
