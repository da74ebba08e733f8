import type { ImportRecords, KindEntity, RecordWrite, StockStateEntity } from '../domain/kind-definition.ts';
import type { Item } from '../../inventory/index.ts';
import type { VersionedRecord } from '../../inventory/index.ts';
import type { StockRecord } from '../../inventory/index.ts';
import type { StockPlace } from '../../stock/index.ts';
import { BomsStore } from '../../boms/store/index.ts';
import { InventoryStore } from '../../inventory/store/index.ts';
import { StockStore } from '../../stock/store/index.ts';
import { stockStateByKeys, stockWritesOf } from '../../stock/store/index.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * The import pipeline's records: inventory records, BOMs for the `boms` kind, and for the kinds
 * that move stock their row claims, item totals, receipts, counts and builds.
 */
export class ImportRecordsStore implements ImportRecords<StoreWrite> {
  private readonly inventory: InventoryStore;
  private readonly boms: BomsStore;
  private readonly stock: StockStore;

  /** All of them live in the inventory table. */
  constructor(inventoryTable: string) {
    this.inventory = new InventoryStore(inventoryTable);
    this.boms = new BomsStore(inventoryTable);
    this.stock = new StockStore(inventoryTable);
  }

  getByNaturalKeys(
    organizationId: string,
    entity: KindEntity | StockStateEntity,
    naturalKeys: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<unknown>>> {
    switch (entity) {
      case 'bom':
        return this.boms.getByCodes(organizationId, naturalKeys);
      case 'stock-entry':
      case 'item-stock':
      case 'stock-document':
        return stockStateByKeys(this.inventory, this.stock, organizationId, entity, naturalKeys);
      default:
        return this.inventory.getByNaturalKeys(organizationId, entity, naturalKeys);
    }
  }

  async getItemsByIds(organizationId: string, ids: Iterable<string>): Promise<Map<string, Item>> {
    const found = await this.inventory.getByIds(organizationId, 'item', ids);
    return new Map([...found].map(([id, { record }]) => [id, record]));
  }

  stockRecordsAt(organizationId: string, places: ReadonlyArray<StockPlace>, options?: { readOnly?: boolean }): Promise<StockRecord[]> {
    return this.inventory.stockRecordsAt(organizationId, places, options);
  }

  writesOf(organizationId: string, write: RecordWrite): StoreWrite[] {
    switch (write.op) {
      case 'create':
        return this.inventory.createWrites(organizationId, write.entity, write.record);
      case 'update':
        return this.inventory.updateWrites(
          organizationId,
          write.entity,
          write.record,
          write.expectedVersion,
          'previousOnHand' in write ? write.previousOnHand : undefined,
        );
      case 'check':
        return [this.inventory.unchangedCheck(organizationId, write.entity, write.record, write.expectedVersion)];
      case 'create-bom':
        return this.boms.createWrites(organizationId, write.bom, write.revision);
      case 'update-bom':
        return this.boms.updateWrites(organizationId, write.bom, write.expectedVersion, write.revision);
      case 'create-build':
        return this.boms.buildWrites(organizationId, write.build);
      case 'check-bom':
        return [this.boms.unchangedCheck(organizationId, write.bomId, write.expectedVersion)];
      default:
        return stockWritesOf(this.inventory, this.stock, organizationId, write);
    }
  }
}
