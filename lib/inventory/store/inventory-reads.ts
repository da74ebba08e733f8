import { GetCommand } from '@aws-sdk/lib-dynamodb';
import type { Item } from '../domain/item.ts';
import type { Location } from '../domain/location.ts';
import { INVENTORY_RECORD_TYPES, type InventoryRecordType, type InventoryRecordTypes, type VersionedRecord } from '../domain/records.ts';
import type { InventoryReadStorage, ItemFilter, LocationListFilter, MovementFilter, StockRecordFilter, VersionedPage } from '../domain/reads.ts';
import type { MovementRecord, StockRecord } from '../domain/stock.ts';
import type { PageOf } from '../../platform/pagination/page.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { readPageInOneQuery, sortKeyRange, type ItemFilter as Filter } from '../../platform/dynamo/entity.ts';
import { inventoryListOf, inventoryRecordEntity, LIST_PREFIXES, listSortKeys } from './entities.ts';
import { searchable, type ListedRecordType } from './inventory-lists.ts';
import { readStockRecordPage } from './stock-record-list.ts';
import { movementById } from './movements-store.ts';

/**
 * The inventory reads (docs/inventory.md "Reading inventory"): a record by id is one consistent
 * GetItem, a page of a list one consistent Query of the type's list partition
 * (lib/inventory/store/inventory-lists.ts), whose sort-key range the filters narrow where they can; a page
 * of stock records then reads its records by id (lib/inventory/store/stock-record-list.ts). Items' totals
 * are read beside (lib/inventory/store/item-stock-reads.ts).
 */

/** Entries a filtered page examines at most (docs/inventory.md "Reading inventory"). */
export const INVENTORY_LIST_READ_BUDGET = 1000;

type Range = { lower: string; upper: string };

/** Exactly one sort key. */
const exactly = (sortKey: string): Range => ({ lower: sortKey, upper: sortKey });
/** The keys starting with `prefix`, which ends in `#`. */
const startingWith = (prefix: string): Range => ({ lower: prefix, upper: `${prefix.slice(0, -1)}$` });

/** Archived records carry `status` (an active one is stored without it). */
const ACTIVE_ONLY = 'attribute_not_exists(#record.#status)';
const STATUS_NAMES = { '#record': 'record', '#status': 'status' };

class Conditions {
  private readonly expressions: string[] = [];
  readonly names: Record<string, string> = {};
  readonly values: Record<string, unknown> = {};

  add(expression: string, names: Record<string, string>, values: Record<string, unknown>): void {
    this.expressions.push(expression);
    Object.assign(this.names, names);
    Object.assign(this.values, values);
  }

  filter(): Filter | undefined {
    return this.expressions.length === 0 ? undefined : { expression: this.expressions.join(' AND '), names: this.names, values: this.values };
  }
}

export class InventoryReadStore implements InventoryReadStorage {
  constructor(private readonly tableName: string) {}

  async record<T extends InventoryRecordType>(organizationId: string, type: T, id: string): Promise<InventoryRecordTypes[T] | undefined> {
    // An id of another type is unknown here, not a read of some other record.
    if (!id.startsWith(`${INVENTORY_RECORD_TYPES[type].idPrefix}_`)) return undefined;
    const { Item: stored } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: inventoryRecordEntity.key({ organizationId, recordType: type, id }), ConsistentRead: true }),
    );
    return stored?.recordType === type ? (stored.record as InventoryRecordTypes[T]) : undefined;
  }

  /** The record with its version (one consistent GetItem). */
  async versioned<T extends InventoryRecordType>(organizationId: string, type: T, id: string): Promise<VersionedRecord<InventoryRecordTypes[T]> | undefined> {
    if (!id.startsWith(`${INVENTORY_RECORD_TYPES[type].idPrefix}_`)) return undefined;
    const { Item: stored } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: inventoryRecordEntity.key({ organizationId, recordType: type, id }), ConsistentRead: true }),
    );
    return stored?.recordType === type ? { record: stored.record as InventoryRecordTypes[T], version: (stored.version as number | undefined) ?? 1 } : undefined;
  }

  /** One GetItem, or 2 for an id stored by older code or unknown (lib/inventory/store/movements-store.ts). */
  async movement(organizationId: string, id: string): Promise<MovementRecord | undefined> {
    if (!id.startsWith('mov_')) return undefined;
    return movementById(this.tableName, organizationId, id);
  }

  items(organizationId: string, filter: ItemFilter, after: string | undefined, limit: number): Promise<VersionedPage<Item>> {
    const conditions = new Conditions();
    if (filter.activeOnly === true) conditions.add(ACTIVE_ONLY, STATUS_NAMES, {});
    if (filter.q !== undefined) conditions.add('contains(#search, :q)', { '#search': 'searchText' }, { ':q': searchable(filter.q) });
    const range = filter.sku === undefined ? sortKeyRange(LIST_PREFIXES.sku) : exactly(listSortKeys.item(filter.sku));
    return this.page<Item>(organizationId, 'item', range, conditions, after, limit) as Promise<VersionedPage<Item>>;
  }

  locations(organizationId: string, filter: LocationListFilter, after: string | undefined, limit: number): Promise<VersionedPage<Location>> {
    const conditions = new Conditions();
    if (filter.activeOnly === true) conditions.add(ACTIVE_ONLY, STATUS_NAMES, {});
    // The entry holds the whole location: its parent is read there, not from the sort key (so within the budget).
    if (filter.parentCode !== undefined)
      conditions.add('#record.#parentCode = :parentCode', { '#record': 'record', '#parentCode': 'parentCode' }, { ':parentCode': filter.parentCode });
    const range = filter.code === undefined ? sortKeyRange(LIST_PREFIXES.code) : exactly(listSortKeys.location(filter.code));
    return this.page<Location>(organizationId, 'location', range, conditions, after, limit) as Promise<VersionedPage<Location>>;
  }

  stockRecords(organizationId: string, filter: StockRecordFilter, after: string | undefined, limit: number): Promise<PageOf<StockRecord>> {
    const { itemId, locationId, lot } = filter;
    const conditions = new Conditions();
    let range: Range;
    if (itemId !== undefined && locationId !== undefined && lot !== undefined) range = exactly(listSortKeys.stockByItem(itemId, locationId, lot));
    else {
      if (lot !== undefined) conditions.add('#lot = :lot', { '#lot': 'lot' }, { ':lot': lot });
      if (itemId !== undefined) range = startingWith(listSortKeys.stockByItem(itemId, locationId));
      else if (locationId !== undefined) range = startingWith(listSortKeys.stockByLocation(locationId));
      else range = sortKeyRange(LIST_PREFIXES.stockByItem);
    }
    // The entries hold keys only: a page reads them, then the records (lib/inventory/store/stock-record-list.ts).
    return readStockRecordPage({
      tableName: this.tableName,
      organizationId,
      range,
      entryFilter: conditions.filter(),
      nonZero: filter.nonZero === true,
      after,
      limit,
      budget: INVENTORY_LIST_READ_BUDGET,
    });
  }

  movements(organizationId: string, filter: MovementFilter, after: string | undefined, limit: number): Promise<PageOf<MovementRecord>> {
    const conditions = new Conditions();
    if (filter.itemId !== undefined) conditions.add('#itemId = :itemId', { '#itemId': 'itemId' }, { ':itemId': filter.itemId });
    if (filter.locationId !== undefined)
      conditions.add('contains(#locationIds, :locationId)', { '#locationIds': 'locationIds' }, { ':locationId': filter.locationId });
    if (filter.type !== undefined) conditions.add('#movementType = :movementType', { '#movementType': 'movementType' }, { ':movementType': filter.type });
    // Times are ISO 8601 UTC in milliseconds, so they sort as strings; `toUtc` is exclusive (no key equals the bare `AT#<time>`).
    const all = sortKeyRange(LIST_PREFIXES.movementAt);
    const range = {
      lower: filter.fromUtc === undefined ? all.lower : `${LIST_PREFIXES.movementAt}#${filter.fromUtc}`,
      upper: filter.toUtc === undefined ? all.upper : `${LIST_PREFIXES.movementAt}#${filter.toUtc}`,
    };
    return this.page<MovementRecord>(organizationId, 'movement', range, conditions, after, limit, true);
  }

  private async page<R>(
    organizationId: string,
    type: ListedRecordType,
    range: Range,
    conditions: Conditions,
    after: string | undefined,
    limit: number,
    newestFirst = false,
  ): Promise<PageOf<R> & { versions: Map<string, number> }> {
    const filter = conditions.filter();
    const page = await readPageInOneQuery({
      tableName: this.tableName,
      partition: { name: 'pk', value: inventoryListOf(organizationId, type) },
      sortKey: { name: 'sk', ...range },
      after,
      limit,
      newestFirst,
      budget: filter === undefined ? limit + 1 : Math.max(limit + 1, INVENTORY_LIST_READ_BUDGET),
      ...(filter === undefined ? {} : { filter }),
    });
    // Item and location entries copy the record's version; entries written before they did read as version 1.
    const versions = new Map(page.items.map((item) => [item.id as string, (item.version as number | undefined) ?? 1]));
    return { items: page.items.map((item) => item.record as R), ...(page.last === undefined ? {} : { last: page.last }), more: page.more, versions };
  }
}
