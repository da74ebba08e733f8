import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import {
  NaturalKeyTakenError,
  naturalKeyOf,
  type InventoryRecords,
  type InventoryRecordType,
  type InventoryRecordTypes,
  type VersionedRecord,
} from '../domain/records.ts';
import type { Movement, MovementLeg, MovementRecord, StockRecord } from '../domain/stock.ts';
import type { ItemAtLocation as StockPlace } from '../domain/stock.ts';
import { batchGet, entityItem, type Key } from '../../platform/dynamo/entity.ts';
import { inventoryRecordEntity, naturalKeyClaimEntity } from './entities.ts';
import { InventoryRecordChecks } from './inventory-record-checks.ts';
import { listEntryRenameWrites, listEntryUpdateWrites, listEntryWrites, naturalKeyClaimKey } from './inventory-lists.ts';
import { movementsOf, movementWrite } from './movements-store.ts';
import { entersStock, stockedLotPut, stockedRecordsAt } from './stocked-lots.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Items, locations and stock records in the inventory table, each stored once under its id, and
 * a claim per natural key naming that id: the record's list entry whose sort key is its natural
 * key (lib/inventory/store/inventory-lists.ts). Creating a record puts the record and that entry with
 * `attribute_not_exists` in the same transaction, so two concurrent creates of one natural key
 * give exactly one record. Records created by older code also have a claim item, still read
 * (docs/architecture.md "Storage: the entity layer"). Natural keys never change, so an update
 * writes the record alone, with the list entries that copy it (items', locations'): a stock
 * record's entries hold keys only and are written once, when it is created. A movement is one
 * item of its own (lib/inventory/store/movements-store.ts).
 */

type StoredItem = Record<string, NativeAttributeValue>;

const keyString = (key: Key) => `${key.pk}\u0000${key.sk ?? ''}`;

export class InventoryStore extends InventoryRecordChecks implements InventoryRecords<StoreWrite> {
  async getByNaturalKeys<T extends InventoryRecordType>(
    organizationId: string,
    type: T,
    naturalKeys: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<InventoryRecordTypes[T]>>> {
    const idOfKey = await this.claimedIds(organizationId, type, naturalKeys);
    const records = await this.getByIds(organizationId, type, idOfKey.values());
    const found = new Map<string, VersionedRecord<InventoryRecordTypes[T]>>();
    for (const [naturalKey, id] of idOfKey) {
      const record = records.get(id);
      if (record) found.set(naturalKey, record);
    }
    return found;
  }

  /** The record and its list entries, the one that claims its natural key put only where absent. */
  createWrites<T extends InventoryRecordType>(organizationId: string, type: T, record: InventoryRecordTypes[T]): StoreWrite[] {
    const taken = () => new NaturalKeyTakenError(type, naturalKeyOf(type, record));
    const recordPut: StoreWrite = {
      item: { Put: { TableName: this.tableName, Item: this.recordItem(organizationId, type, record, 1), ConditionExpression: 'attribute_not_exists(pk)' } },
    };
    return [recordPut, ...listEntryWrites(this.tableName, organizationId, type, record, taken), ...this.stockedLotWrites(organizationId, type, record, 0)];
  }

  /** `previousOnHand`: a stock record's on-hand as read (unknown: the lot's entry is put whenever it holds stock). */
  updateWrites<T extends InventoryRecordType>(
    organizationId: string,
    type: T,
    record: InventoryRecordTypes[T],
    expectedVersion: number,
    previousOnHand?: number,
  ): StoreWrite[] {
    return [
      // The natural key is part of the condition: an update can never move a record to another key.
      this.recordPutOver(organizationId, type, record, expectedVersion, naturalKeyOf(type, record)),
      ...listEntryUpdateWrites(this.tableName, organizationId, type, record, expectedVersion + 1),
      ...this.stockedLotWrites(organizationId, type, record, previousOnHand ?? 0),
    ];
  }

  /**
   * A rename (docs/inventory.md "Writing the catalog"): the record over `expectedVersion` while it
   * still has its old natural key, the entry that claimed the old key deleted (and the claim item
   * of older code, if any), the new one put where absent; another record holding the new key
   * fails the transaction with NaturalKeyTakenError.
   */
  renameWrites<T extends 'item' | 'location'>(
    organizationId: string,
    type: T,
    record: InventoryRecordTypes[T],
    previousNaturalKey: string,
    expectedVersion: number,
  ): StoreWrite[] {
    const taken = () => new NaturalKeyTakenError(type, naturalKeyOf(type, record));
    return [
      this.recordPutOver(organizationId, type, record, expectedVersion, previousNaturalKey),
      ...listEntryRenameWrites(this.tableName, organizationId, type, record, previousNaturalKey, expectedVersion + 1, taken),
    ];
  }

  /** The record's next version, put only over `expectedVersion` while the stored record still has `naturalKey`. */
  private recordPutOver<T extends InventoryRecordType>(
    organizationId: string,
    type: T,
    record: InventoryRecordTypes[T],
    expectedVersion: number,
    naturalKey: string,
  ): StoreWrite {
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: this.recordItem(organizationId, type, record, expectedVersion + 1),
          ConditionExpression: 'version = :expected AND naturalKey = :naturalKey',
          ExpressionAttributeValues: { ':expected': expectedVersion, ':naturalKey': naturalKey },
        },
      },
    };
  }

  /** A lot record that comes to hold stock puts its entry among the place's stocked lots (lib/inventory/store/stocked-lots.ts). */
  private stockedLotWrites<T extends InventoryRecordType>(
    organizationId: string,
    type: T,
    record: InventoryRecordTypes[T],
    previousOnHand: number,
  ): StoreWrite[] {
    if (type !== 'stock-record') return [];
    const stock = record as StockRecord;
    return entersStock(stock, previousOnHand) ? [stockedLotPut(this.tableName, organizationId, stock as StockRecord & { lot: string })] : [];
  }

  recordMovementWrite(organizationId: string, movement: MovementRecord, legs: readonly MovementLeg[]): StoreWrite {
    return movementWrite(this.tableName, organizationId, movement, legs);
  }

  movementsOf(organizationId: string, stockRecordId: string): Promise<Movement[]> {
    return movementsOf(this.tableName, organizationId, stockRecordId);
  }

  /**
   * The stock records of each item at each location that hold stock, whatever the lot: per place,
   * one consistent Query of its stocked lots, then the records by id, all in one batch
   * (lib/inventory/store/stocked-lots.ts); lots at 0 are not read. `readOnly` leaves the index's
   * upkeep (indexing a place, removing entries at 0) to a later read.
   */
  stockRecordsAt(organizationId: string, places: ReadonlyArray<StockPlace>, options?: { readOnly?: boolean }): Promise<StockRecord[]> {
    return stockedRecordsAt(this.tableName, organizationId, places, options);
  }

  /**
   * The id each natural key is claimed for, in one BatchGetItem (100 keys a request, sent in
   * parallel): the list entries that claim the keys, and the claim items of older code. A record
   * created before has a claim item and maybe no entry; where both exist they name the same
   * record, and the entry is the one read.
   */
  private async claimedIds(organizationId: string, type: InventoryRecordType, naturalKeys: Iterable<string>): Promise<Map<string, string>> {
    const claims = [...new Set(naturalKeys)].map((naturalKey) => ({ naturalKey, keys: this.claimKeysOf(organizationId, type, naturalKey) }));
    const found = await batchGet(
      this.tableName,
      claims.flatMap((claim) => claim.keys),
    );
    const idAt = new Map(found.map((item) => [keyString({ pk: item.pk as string, sk: item.sk as string }), item.id as string]));
    const idOfKey = new Map<string, string>();
    for (const { naturalKey, keys } of claims) {
      const id = keys.map((key) => idAt.get(keyString(key))).find((claimed) => claimed !== undefined);
      if (id !== undefined) idOfKey.set(naturalKey, id);
    }
    return idOfKey;
  }

  /** The keys that may claim a natural key, the deciding one first: the list entry a create claims it with, then the claim item of older code. */
  private claimKeysOf(organizationId: string, type: InventoryRecordType, naturalKey: string): Key[] {
    return [naturalKeyClaimKey(organizationId, type, naturalKey), naturalKeyClaimEntity.key({ organizationId, recordType: type, naturalKey })];
  }

  private recordItem<T extends InventoryRecordType>(organizationId: string, type: T, record: InventoryRecordTypes[T], version: number): StoredItem {
    return entityItem(
      inventoryRecordEntity,
      { organizationId, recordType: type, id: record.id },
      {
        organizationId,
        recordType: type,
        id: record.id,
        naturalKey: naturalKeyOf(type, record),
        version,
        record,
      },
    );
  }
}
