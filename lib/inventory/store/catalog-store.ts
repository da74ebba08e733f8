import type { CatalogPorts } from '../domain/catalog-writes.ts';
import type { Item, TrackingMode } from '../domain/item.ts';
import type { VersionedRecord } from '../domain/records.ts';
import { INVENTORY_RECORD_TYPES } from '../domain/records.ts';
import type { ItemStock } from '../domain/stock.ts';
import { batchGet, entityItem } from '../../platform/dynamo/entity.ts';
import { inventoryRecordEntity, itemStockEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';
import { InventoryReadStore } from './inventory-reads.ts';
import { InventoryStore } from './inventory-store.ts';

/**
 * What the catalog writes read and write (lib/inventory/domain/catalog-writes.ts): the records
 * through InventoryStore, the item with its total in one consistent BatchGetItem, and the
 * rewrite of the total that keeps stock writes decided on the item as it was from committing
 * (the same item and condition the stock writes put, lib/stock/store/stock-store.ts).
 */
export function catalogPorts(tableName: string): CatalogPorts<StoreWrite> {
  const records = new InventoryStore(tableName);
  const reads = new InventoryReadStore(tableName);
  return {
    records,
    async itemWithTotal(organizationId, itemId) {
      if (!itemId.startsWith(`${INVENTORY_RECORD_TYPES.item.idPrefix}_`)) return undefined;
      const stored = await batchGet(tableName, [
        inventoryRecordEntity.key({ organizationId, recordType: 'item', id: itemId }),
        itemStockEntity.key({ organizationId, itemId }),
      ]);
      const item = stored.find((found) => found.recordType === 'item' && found.id === itemId);
      if (item === undefined) return undefined;
      const total = stored.find((found) => found.entity === itemStockEntity.type);
      return {
        item: { record: item.record as Item, version: (item.version as number | undefined) ?? 1 },
        total: total === undefined ? undefined : { record: total.itemStock as ItemStock, version: total.version as number },
      };
    },
    totalRewrite(
      organizationId,
      itemId,
      total: VersionedRecord<ItemStock> | undefined,
      trackingModeRead: TrackingMode,
      trackingMode: TrackingMode,
    ): StoreWrite {
      const itemStock: ItemStock = { ...(total?.record ?? { itemId, onHand: 0 }), trackingMode };
      const item = entityItem(itemStockEntity, { organizationId, itemId }, { itemStock, version: (total?.version ?? 0) + 1 });
      if (total === undefined) return { item: { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } };
      return {
        item: {
          Put: {
            TableName: tableName,
            Item: item,
            ConditionExpression: 'version = :expected AND (attribute_not_exists(itemStock.trackingMode) OR itemStock.trackingMode = :mode)',
            ExpressionAttributeValues: { ':expected': total.version, ':mode': trackingModeRead },
          },
        },
      };
    },
    async hasChildren(organizationId, code) {
      let after: string | undefined;
      for (;;) {
        const page = await reads.locations(organizationId, { parentCode: code }, after, 1);
        if (page.items.length > 0) return true;
        if (!page.more || page.last === undefined) return false;
        after = page.last;
      }
    },
  };
}
