import type { AvailabilityEntry, ItemAvailabilityStorage } from '../domain/availability.ts';
import { readPageInOneQuery } from '../../platform/dynamo/entity.ts';
import { inventoryListOf, listSortKeys } from './entities.ts';
import { readItemWithStock } from './item-stock-reads.ts';

/**
 * What `GET /v1/items/{id}/availability` reads (docs/inventory.md "Reading inventory"): the item's
 * by-item stock-record entries (keys only: `ITEM#<itemId>#<locationId>#<lot>`, so in location id,
 * then lot order) in one consistent Query, then the item, its total and the records in one
 * consistent BatchGetItem (lib/inventory/store/item-stock-reads.ts).
 */
export class ItemAvailabilityStore implements ItemAvailabilityStorage {
  constructor(private readonly tableName: string) {}

  async stockRecordEntriesOfItem(
    organizationId: string,
    itemId: string,
    afterLocationId: string | undefined,
    limit: number,
  ): Promise<{ entries: AvailabilityEntry[]; more: boolean }> {
    const prefix = listSortKeys.stockByItem(itemId);
    // `ITEM#<itemId>#<locationId>$` sorts after every lot of that location (`#` < `$`) and before the next location.
    const lower = afterLocationId === undefined ? prefix : `${listSortKeys.stockByItem(itemId, afterLocationId).slice(0, -1)}$`;
    const page = await readPageInOneQuery({
      tableName: this.tableName,
      partition: { name: 'pk', value: inventoryListOf(organizationId, 'stock-record') },
      sortKey: { name: 'sk', lower, upper: `${prefix.slice(0, -1)}$` },
      limit,
      budget: limit,
    });
    // Ids never contain '#': the location is the third part of the sort key.
    const entries = page.items.map((entry) => ({ stockRecordId: entry.id as string, locationId: (entry.sk as string).split('#')[2] ?? '' }));
    return { entries, more: page.more };
  }

  itemWithStockRecords(organizationId: string, itemId: string, stockRecordIds: readonly string[]) {
    return readItemWithStock(this.tableName, organizationId, itemId, stockRecordIds);
  }
}
