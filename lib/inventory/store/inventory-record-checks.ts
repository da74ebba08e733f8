import {
  INVENTORY_RECORD_TYPES,
  naturalKeyOf,
  type InventoryRecords,
  type InventoryRecordType,
  type InventoryRecordTypes,
  type VersionedRecord,
} from '../domain/records.ts';
import { batchGet } from '../../platform/dynamo/entity.ts';
import { inventoryRecordEntity } from './entities.ts';
import { naturalKeyClaimKey } from './inventory-lists.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * The reads by id and the transaction checks of inventory records: what a write of another area
 * needs to rest on items (a BOM's components), without the record writes and lists of
 * InventoryStore (inventory-store.ts), which extends this; a BOM function bundles this alone
 * (docs/performance.md "Bundles").
 */
export class InventoryRecordChecks implements Pick<InventoryRecords<StoreWrite>, 'getById' | 'getByIds' | 'existsCheck' | 'unchangedCheck'> {
  constructor(protected readonly tableName: string) {}

  async getById<T extends InventoryRecordType>(organizationId: string, type: T, id: string): Promise<VersionedRecord<InventoryRecordTypes[T]> | undefined> {
    return (await this.getByIds(organizationId, type, [id])).get(id);
  }

  async getByIds<T extends InventoryRecordType>(
    organizationId: string,
    type: T,
    ids: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<InventoryRecordTypes[T]>>> {
    const prefix = `${INVENTORY_RECORD_TYPES[type].idPrefix}_`;
    // An id of another type is unknown here, not a read of some other record.
    const wanted = [...new Set(ids)].filter((id) => id.startsWith(prefix));
    const items = await batchGet(
      this.tableName,
      wanted.map((id) => inventoryRecordEntity.key({ organizationId, recordType: type, id })),
    );
    const found = new Map<string, VersionedRecord<InventoryRecordTypes[T]>>();
    for (const item of items) {
      if (item.recordType !== type) continue;
      found.set(item.id as string, { record: item.record as InventoryRecordTypes[T], version: item.version as number });
    }
    return found;
  }

  existsCheck(organizationId: string, type: InventoryRecordType, id: string, onMissing: () => Promise<Error>): StoreWrite {
    return {
      item: {
        ConditionCheck: {
          TableName: this.tableName,
          Key: inventoryRecordEntity.key({ organizationId, recordType: type, id }),
          ConditionExpression: 'recordType = :type',
          ExpressionAttributeValues: { ':type': type },
        },
      },
      onConditionFailed: onMissing,
    };
  }

  /**
   * That a record is still at `expectedVersion`, or (null) that its natural key is still
   * unclaimed (`claimKeyOf` absent), written nothing: for a decision that rests on a record it did
   * not change.
   */
  unchangedCheck<T extends InventoryRecordType>(organizationId: string, type: T, record: InventoryRecordTypes[T], expectedVersion: number | null): StoreWrite {
    if (expectedVersion === null) {
      const claim = naturalKeyClaimKey(organizationId, type, naturalKeyOf(type, record));
      return { item: { ConditionCheck: { TableName: this.tableName, Key: claim, ConditionExpression: 'attribute_not_exists(pk)' } } };
    }
    return {
      item: {
        ConditionCheck: {
          TableName: this.tableName,
          Key: inventoryRecordEntity.key({ organizationId, recordType: type, id: record.id }),
          ConditionExpression: 'version = :expected',
          ExpressionAttributeValues: { ':expected': expectedVersion },
        },
      },
    };
  }
}
