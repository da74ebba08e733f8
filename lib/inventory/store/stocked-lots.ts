import { TransactWriteCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { ItemAtLocation as StockPlace, StockRecord } from '../domain/stock.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { batchGet, entityItem, queryAll, readAll } from '../../platform/dynamo/entity.ts';
import { inventoryListOf, inventoryRecordEntity, listSortKeys, stockedLotEntity, stockedLotsOf, stockedPlaceMarkEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * The lots of an item at a location that hold stock (docs/inventory.md "Reservations and
 * available stock"), so that drawing oldest lots first reads those, not every lot the place ever
 * had (lots used up stay as records at 0 for ever). One partition per place, in the base table
 * (read strongly consistent):
 *
 * - an entry per lot that may hold stock, put in the same transaction as the write that takes the
 *   lot's record from 0 to more (one action more for that write only: a receipt into a new lot,
 *   stock put back into a lot at 0; never a hold, a release or a draw). Every lot record with
 *   stock has one.
 * - A write that takes a lot to 0 leaves its entry (it would cost an action in every shipment and
 *   consumption, and slices are sized without it); the next read of the place finds the record at
 *   0 and removes the entry in a transaction that checks the record still at the version read, so
 *   a lot stocked again meanwhile keeps it. A read thus reads the lots with stock and the lots
 *   used up since the place was last read, each of those once.
 * - The mark `INDEXED`: the place's entries are complete. Records written before this index
 *   existed have no entry, so the first read of a place without the mark reads the place's whole
 *   stock-record list (as every read did before), puts the entries of the lots with stock, then
 *   the mark. Writers of stock put entries whether the place is marked or not.
 */

type StoredItem = Record<string, NativeAttributeValue>;

/** Actions one transaction of this module takes at most (DynamoDB's limit). */
const ACTIONS = 100;

/** Whether a write of `record` takes its lot from no stock to some: the write must put the lot's entry. */
export function entersStock(record: StockRecord, previousOnHand: number): boolean {
  return record.lot !== null && previousOnHand <= 0 && record.onHand > 0;
}

/** The put of a lot's entry (unconditional: the record's own write carries the condition). */
export function stockedLotPut(tableName: string, organizationId: string, record: StockRecord & { lot: string }): StoreWrite {
  const Item = entityItem(
    stockedLotEntity,
    { organizationId, itemId: record.itemId, locationId: record.locationId, lot: record.lot },
    { id: record.id, lot: record.lot },
  );
  return { item: { Put: { TableName: tableName, Item } } };
}

interface PlaceRead {
  place: StockPlace;
  marked: boolean;
  /** The lots with an entry, by the record id each names. */
  entries: Map<string, string>;
  /** The ids of every record of the place (read only when the place is not marked). */
  listed: string[];
}

/**
 * The stock records of each place whose on-hand is above 0, in any order: per place one
 * consistent Query of its partition, then the records by id in one batch. A place not marked
 * yet is indexed (above); entries of records found at 0 are removed. Neither changes the result:
 * a failure of either is left for the next read, and a `readOnly` read (a dry run's) leaves both to it.
 */
export async function stockedRecordsAt(
  tableName: string,
  organizationId: string,
  places: ReadonlyArray<StockPlace>,
  options: { readOnly?: boolean } = {},
): Promise<StockRecord[]> {
  const reads = await Promise.all(places.map((place) => readPlace(tableName, organizationId, place)));
  const ids = [...new Set(reads.flatMap((read) => [...read.entries.keys(), ...read.listed]))];
  const stored = new Map<string, { record: StockRecord; version: number }>();
  if (ids.length > 0) {
    const items = await batchGet(
      tableName,
      ids.map((id) => inventoryRecordEntity.key({ organizationId, recordType: 'stock-record', id })),
    );
    for (const item of items)
      if (item.recordType === 'stock-record') stored.set(item.id as string, { record: item.record as StockRecord, version: item.version as number });
  }
  const stocked = new Map<string, StockRecord>();
  const removals: StoreWrite[][] = [];
  const marks: StoreWrite[][] = [];
  for (const read of reads) {
    for (const id of [...read.entries.keys(), ...read.listed]) {
      const found = stored.get(id);
      if (found && found.record.onHand > 0) stocked.set(id, found.record);
    }
    for (const [id, lot] of read.entries) {
      const found = stored.get(id);
      if (found && found.record.onHand <= 0) removals.push(removalOf(tableName, organizationId, read.place, lot, found));
    }
    if (!read.marked) marks.push(markingOf(tableName, organizationId, read, stocked));
  }
  if (!options.readOnly) await Promise.all([inTransactions(removals.flat(), 2), ...marks.map((writes) => inTransactions(writes, 1))]);
  return [...stocked.values()];
}

async function readPlace(tableName: string, organizationId: string, place: StockPlace): Promise<PlaceRead> {
  const items = await queryAll({
    TableName: tableName,
    KeyConditionExpression: '#pk = :pk',
    ExpressionAttributeNames: { '#pk': 'pk' },
    ExpressionAttributeValues: { ':pk': stockedLotsOf(organizationId, place.itemId, place.locationId) },
    ConsistentRead: true,
  });
  const marked = items.some((item) => item.entity === stockedPlaceMarkEntity.type);
  const entries = new Map(items.filter((item) => item.entity === stockedLotEntity.type).map((item) => [item.id as string, item.lot as string]));
  if (marked) return { place, marked, entries, listed: [] };
  const prefix = listSortKeys.stockByItem(place.itemId, place.locationId);
  const listed = await readAll({
    tableName,
    partition: { name: 'pk', value: inventoryListOf(organizationId, 'stock-record') },
    sortKey: { name: 'sk', lower: prefix, upper: `${prefix.slice(0, -1)}$` },
  });
  return { place, marked, entries, listed: listed.map((entry) => entry.id as string) };
}

/** The removal of a lot's entry, only while its record is still at the version read at 0. */
function removalOf(tableName: string, organizationId: string, place: StockPlace, lot: string, found: { record: StockRecord; version: number }): StoreWrite[] {
  return [
    {
      item: {
        ConditionCheck: {
          TableName: tableName,
          Key: inventoryRecordEntity.key({ organizationId, recordType: 'stock-record', id: found.record.id }),
          ConditionExpression: 'version = :version',
          ExpressionAttributeValues: { ':version': found.version },
        },
      },
    },
    { item: { Delete: { TableName: tableName, Key: stockedLotEntity.key({ organizationId, itemId: place.itemId, locationId: place.locationId, lot }) } } },
  ];
}

/** A place's first read: the entries its lots with stock lack, then its mark (last, so it is written only once they are). */
function markingOf(tableName: string, organizationId: string, read: PlaceRead, stocked: ReadonlyMap<string, StockRecord>): StoreWrite[] {
  const lacking = [...stocked.values()].filter(
    (record) => record.itemId === read.place.itemId && record.locationId === read.place.locationId && record.lot !== null && !read.entries.has(record.id),
  );
  const mark: StoredItem = entityItem(stockedPlaceMarkEntity, { organizationId, ...read.place }, {});
  return [
    ...lacking.map((record) => stockedLotPut(tableName, organizationId, record as StockRecord & { lot: string })),
    { item: { Put: { TableName: tableName, Item: mark } } },
  ];
}

/**
 * Commits `writes` in order, in transactions of whole groups of `group` writes; the first that
 * fails ends it (a record changed meanwhile, a conflict): what it would have written is left for
 * the next read, which decides it again.
 */
async function inTransactions(writes: StoreWrite[], group: number): Promise<void> {
  const size = ACTIONS - (ACTIONS % group);
  try {
    for (let start = 0; start < writes.length; start += size) {
      await documentClient.send(new TransactWriteCommand({ TransactItems: writes.slice(start, start + size).map((write) => write.item) }));
    }
  } catch {
    // Index upkeep only: the records read are the answer whatever it did.
  }
}
