import { BatchGetCommand, type BatchGetCommandOutput } from '@aws-sdk/lib-dynamodb';
import { documentClient } from './clients.ts';
import { keys } from './keys.ts';
import type { StoreWrite } from './transaction-writer.ts';

/**
 * Inventory records addressed by their natural key (items by sku, locations by code). Each
 * carries a `version`, so an update commits only over the state it was decided on.
 */

const BATCH_GET_LIMIT = 100;

export interface VersionedRecord<R> {
  record: R;
  version: number;
}

export class InventoryRecordsStore {
  constructor(private readonly tableName: string) {}

  /** The records of `entity` with these natural keys (missing ones are absent from the map). */
  async getMany<R>(organizationId: string, entity: string, naturalKeys: Iterable<string>): Promise<Map<string, VersionedRecord<R>>> {
    const found = new Map<string, VersionedRecord<R>>();
    const all = [...new Set(naturalKeys)];
    for (let start = 0; start < all.length; start += BATCH_GET_LIMIT) {
      let requested: Record<string, unknown>[] | undefined = all
        .slice(start, start + BATCH_GET_LIMIT)
        .map((naturalKey) => keys.inventoryRecord(organizationId, entity, naturalKey));
      while (requested && requested.length > 0) {
        const result: BatchGetCommandOutput = await documentClient.send(
          new BatchGetCommand({ RequestItems: { [this.tableName]: { Keys: requested, ConsistentRead: true } } }),
        );
        for (const item of result.Responses?.[this.tableName] ?? []) {
          found.set(item.naturalKey as string, { record: item.record as R, version: item.version as number });
        }
        requested = result.UnprocessedKeys?.[this.tableName]?.Keys;
      }
    }
    return found;
  }

  /** Creates (expectedVersion undefined) or replaces the record at exactly `expectedVersion`. */
  putWrite<R>(organizationId: string, entity: string, naturalKey: string, record: R, expectedVersion?: number): StoreWrite {
    const creating = expectedVersion === undefined;
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: {
            ...keys.inventoryRecord(organizationId, entity, naturalKey),
            entity,
            schemaVersion: 1,
            organizationId,
            naturalKey,
            version: creating ? 1 : expectedVersion + 1,
            record,
          },
          ConditionExpression: creating ? 'attribute_not_exists(pk)' : 'version = :expected',
          ExpressionAttributeValues: creating ? undefined : { ':expected': expectedVersion },
        },
      },
    };
  }
}
