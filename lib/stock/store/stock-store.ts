import { GetCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { TrackingMode } from '../../inventory/index.ts';
import type { VersionedRecord } from '../../inventory/index.ts';
import type { ItemStock, StockDocument, StockEntry } from '../domain/records.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { batchGet, entityItem, type EntityDefinition } from '../../platform/dynamo/entity.ts';
import { itemStockEntity } from '../../inventory/store/index.ts';
import { recordPointerEntity } from '../../boms/store/index.ts';
import { stockDocumentEntity, stockEntryEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * What stock flows keep beside stock records and the ledger (docs/inventory.md "The stock
 * model"), each one item keyed by its natural key: row claims (written once), item totals and
 * receipts/counts (versioned: a write commits only over the version it was read at).
 */

type StoredItem = Record<string, NativeAttributeValue>;

export class StockStore {
  constructor(private readonly tableName: string) {}

  getEntries(organizationId: string, keys: Iterable<string>): Promise<Map<string, VersionedRecord<StockEntry>>> {
    return this.read(
      stockEntryEntity,
      [...keys].map((key) => ({ organizationId, key })),
      (item) => (item.entry as StockEntry).key,
      'entry',
    );
  }

  getItemStock(organizationId: string, itemIds: Iterable<string>): Promise<Map<string, VersionedRecord<ItemStock>>> {
    return this.read(
      itemStockEntity,
      [...itemIds].map((itemId) => ({ organizationId, itemId })),
      (item) => (item.itemStock as ItemStock).itemId,
      'itemStock',
    );
  }

  getDocuments(organizationId: string, keys: Iterable<string>): Promise<Map<string, VersionedRecord<StockDocument>>> {
    return this.read(
      stockDocumentEntity,
      [...keys].map((key) => ({ organizationId, key })),
      (item) => (item.document as StockDocument).key,
      'document',
    );
  }

  entryWrite(organizationId: string, entry: StockEntry): StoreWrite {
    return this.put(entityItem(stockEntryEntity, { organizationId, key: entry.key }, { entry, version: 1 }), null);
  }

  /** Deletes the claim `key` while it is still the build `buildId`'s (or already gone): a failed build's reference may be built again. */
  entryReleaseWrite(organizationId: string, key: string, buildId: string): StoreWrite {
    return {
      item: {
        Delete: {
          TableName: this.tableName,
          Key: stockEntryEntity.key({ organizationId, key }),
          ConditionExpression: 'attribute_not_exists(pk) OR entry.buildId = :build',
          ExpressionAttributeValues: { ':build': buildId },
        },
      },
    };
  }

  /**
   * The total over `expectedVersion`, and only while the stored tracking mode is still the one the
   * write was decided on (or not kept yet): docs/inventory.md "The stock model".
   */
  itemStockWrite(organizationId: string, itemStock: ItemStock, expectedVersion: number | null, trackingModeRead: TrackingMode): StoreWrite {
    const item = entityItem(itemStockEntity, { organizationId, itemId: itemStock.itemId }, { itemStock, version: (expectedVersion ?? 0) + 1 });
    if (expectedVersion === null) return this.put(item, null);
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: item,
          ConditionExpression: 'version = :expected AND (attribute_not_exists(itemStock.trackingMode) OR itemStock.trackingMode = :mode)',
          ExpressionAttributeValues: { ':expected': expectedVersion, ':mode': trackingModeRead },
        },
      },
    };
  }

  /** An item total still at `expectedVersion` (null: still absent), checked in the transaction without a write. */
  itemStockCheck(organizationId: string, itemId: string, expectedVersion: number | null): StoreWrite {
    const condition =
      expectedVersion === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } };
    return { item: { ConditionCheck: { TableName: this.tableName, Key: itemStockEntity.key({ organizationId, itemId }), ...condition } } };
  }

  /** The document over `expectedVersion`; a new one also gets the pointer attachments find it by. */
  documentWrites(organizationId: string, document: StockDocument, expectedVersion: number | null): StoreWrite[] {
    const record = this.put(
      entityItem(stockDocumentEntity, { organizationId, key: document.key }, { document, version: (expectedVersion ?? 0) + 1 }),
      expectedVersion,
    );
    if (expectedVersion !== null) return [record];
    return [record, this.put(entityItem(recordPointerEntity, { organizationId, id: document.id }, { documentKey: document.key }), null)];
  }

  /** Whether a receipt or count id names one of the organization's (what an attachment may target). */
  async documentExists(organizationId: string, id: string): Promise<boolean> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: recordPointerEntity.key({ organizationId, id }), ConsistentRead: true }),
    );
    return Item?.documentKey !== undefined;
  }

  private put(item: StoredItem, expectedVersion: number | null): StoreWrite {
    const condition =
      expectedVersion === null
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: 'version = :expected', ExpressionAttributeValues: { ':expected': expectedVersion } };
    return { item: { Put: { TableName: this.tableName, Item: item, ...condition } } };
  }

  private async read<Identity extends object, R>(
    entity: EntityDefinition<Identity, Identity>,
    identities: Identity[],
    keyOf: (item: StoredItem) => string,
    field: string,
  ): Promise<Map<string, VersionedRecord<R>>> {
    const items = await batchGet(
      this.tableName,
      identities.map((identity) => entity.key(identity)),
    );
    return new Map(items.map((item) => [keyOf(item), { record: item[field] as R, version: item.version as number }]));
  }
}
