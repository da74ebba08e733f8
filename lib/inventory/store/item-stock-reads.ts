import type { Item } from '../domain/item.ts';
import type { ItemTotalsStorage, ItemWithStock } from '../domain/item-reads.ts';
import { INVENTORY_RECORD_TYPES } from '../domain/records.ts';
import type { StockRecord } from '../domain/stock.ts';
import type { ItemStock } from '../domain/stock.ts';
import { batchGet } from '../../platform/dynamo/entity.ts';
import { inventoryRecordEntity, itemStockEntity } from './entities.ts';

/**
 * An item read with its total and, for its availability, some of its stock records: ONE
 * consistent BatchGetItem for up to 98 records (more: 100 keys a request, in parallel). The total
 * is the item-stock item beside the item's record (docs/inventory.md "The stock model").
 */
export async function readItemWithStock(
  tableName: string,
  organizationId: string,
  itemId: string,
  stockRecordIds: readonly string[],
): Promise<{ item: Item; version: number; stock: ItemStock | undefined; records: Map<string, StockRecord> } | undefined> {
  // An id of another type names no item: no request.
  if (!itemId.startsWith(`${INVENTORY_RECORD_TYPES.item.idPrefix}_`)) return undefined;
  const stored = await batchGet(tableName, [
    inventoryRecordEntity.key({ organizationId, recordType: 'item', id: itemId }),
    itemStockEntity.key({ organizationId, itemId }),
    ...stockRecordIds.map((id) => inventoryRecordEntity.key({ organizationId, recordType: 'stock-record', id })),
  ]);
  const itemStored = stored.find((found) => found.recordType === 'item' && found.id === itemId);
  const item = itemStored?.record as Item | undefined;
  if (item === undefined) return undefined;
  const version = (itemStored?.version as number | undefined) ?? 1;
  const stock = stored.find((found) => found.entity === itemStockEntity.type)?.itemStock as ItemStock | undefined;
  const records = new Map<string, StockRecord>();
  for (const found of stored) {
    const record = found.record as StockRecord | undefined;
    if (found.recordType === 'stock-record' && record?.itemId === itemId) records.set(record.id, record);
  }
  return { item, version, stock, records };
}

/** Items' totals for the item reads (`GET /v1/items`, `GET /v1/items/{id}`). */
export class ItemTotalsStore implements ItemTotalsStorage {
  constructor(private readonly tableName: string) {}

  /** One consistent BatchGetItem per 100 items, in parallel. */
  async itemStocks(organizationId: string, itemIds: readonly string[]): Promise<Map<string, ItemStock>> {
    const stored = await batchGet(
      this.tableName,
      itemIds.map((itemId) => itemStockEntity.key({ organizationId, itemId })),
    );
    return new Map(
      stored.filter((item) => item.entity === itemStockEntity.type).map((item) => [(item.itemStock as ItemStock).itemId, item.itemStock as ItemStock]),
    );
  }

  itemWithStock(organizationId: string, itemId: string): Promise<ItemWithStock | undefined> {
    return readItemWithStock(this.tableName, organizationId, itemId, []);
  }
}
