import type { NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import type { InventoryRecordType, InventoryRecordTypes } from '../domain/records.ts';
import { entityItem, type Key } from '../../platform/dynamo/entity.ts';
import { inventoryListEntryEntity, LIST_PREFIXES, listSortKeys, naturalKeyClaimEntity, stockRecordListEntryEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * The lists of inventory records (docs/inventory.md "Reading inventory"). Each record type has one
 * list partition per organization in the base table, so every list read is strongly consistent
 * and sees every committed write; a record's entries are written in the same transaction as the
 * record. The sort key is what the filters read: a filter on a sort-key prefix reads exactly its
 * records; the others examine a bounded number of entries per page.
 *
 *   item            SKU#<sku>
 *   location        CODE#<code>
 *   stock record    ITEM#<itemId>#<locationId>#<lot>  and  LOC#<locationId>#<itemId>#<lot>
 *   movement        AT#<occurredAt>#<movementId>
 *
 * A movement's entry is the movement itself (`movementEntity`, lib/inventory/store/movements-store.ts), not a
 * copy written beside it; the other types' entries are written here.
 *
 * Natural keys, ids and a movement's time never change, so an entry's sort key never does. Item
 * and location entries hold the whole record (a page is one Query) and an update rewrites them in
 * place. Stock records change with every movement, so their entries hold only what never changes
 * (the id and the lot) and are written once, when the record is created; a page reads the records
 * by id (lib/inventory/store/stock-record-list.ts). One entry of each record is also its natural-key claim
 * (an item's by sku, a location's by code, a stock record's by item): its sort key is the natural
 * key and it holds the id, so a create puts it with `attribute_not_exists` and writes no claim item
 * of its own (docs/architecture.md "Storage: the entity layer").
 */

export type ListedRecordType = InventoryRecordType | 'movement';

type Attributes = Record<string, NativeAttributeValue>;

interface ListEntry {
  sortKey: string;
  /** What filters read besides the sort key. */
  filterAttributes: Attributes;
  /** The entry is the record's natural-key claim: put only where it is absent. */
  claimsNaturalKey?: true;
}

/**
 * The key of the list entry that claims a record's natural key: an item's `SKU#<sku>`, a
 * location's `CODE#<code>`, a stock record's by-item `ITEM#` + `stockRecordKey`. Each sort key is
 * the natural key itself, so the entry a create writes anyway is its claim.
 */
export function naturalKeyClaimKey(organizationId: string, type: InventoryRecordType, naturalKey: string): Key {
  return inventoryListEntryEntity.key({ organizationId, recordType: type, sortKey: CLAIMING_SORT_KEY[type](naturalKey) });
}

const CLAIMING_SORT_KEY: { readonly [T in InventoryRecordType]: (naturalKey: string) => string } = {
  item: listSortKeys.item,
  location: listSortKeys.location,
  'stock-record': (naturalKey) => `${LIST_PREFIXES.stockByItem}#${naturalKey}`,
};

/** Case-insensitive matching without locale surprises (as BOM lists). */
export function searchable(text: string): string {
  return text.toLowerCase();
}

/** A record with its type, as the list entries are derived from it. */
type Listed = { [T in InventoryRecordType]: { type: T; record: InventoryRecordTypes[T] } }[InventoryRecordType];

function entriesOf(listed: Listed): ListEntry[] {
  switch (listed.type) {
    case 'item': {
      const { sku, name } = listed.record;
      return [{ sortKey: listSortKeys.item(sku), filterAttributes: { searchText: searchable(`${sku}\n${name}`) }, claimsNaturalKey: true }];
    }
    case 'location':
      return [{ sortKey: listSortKeys.location(listed.record.code), filterAttributes: {}, claimsNaturalKey: true }];
    case 'stock-record': {
      const stock = listed.record;
      const filterAttributes = stock.lot === null ? {} : { lot: stock.lot };
      return [
        { sortKey: listSortKeys.stockByItem(stock.itemId, stock.locationId, stock.lot), filterAttributes, claimsNaturalKey: true },
        { sortKey: listSortKeys.stockByLocation(stock.locationId, stock.itemId, stock.lot), filterAttributes },
      ];
    }
  }
}

/** Record types whose entries hold keys only: written at creation, never rewritten. */
const KEYS_ONLY: ReadonlySet<ListedRecordType> = new Set(['stock-record']);

/**
 * The puts of a new record's list entries. An entry that claims the natural key is put only where
 * it is absent, failing with `onNaturalKeyTaken`; the others are unconditional, since the
 * record's own write in the same transaction carries a condition.
 */
export function listEntryWrites<T extends InventoryRecordType>(
  tableName: string,
  organizationId: string,
  type: T,
  record: InventoryRecordTypes[T],
  onNaturalKeyTaken: () => Error,
): StoreWrite[] {
  // The mapped union cannot see that `type` and `record` belong together.
  return entryPuts(tableName, organizationId, { type, record } as Listed, 1, onNaturalKeyTaken);
}

/** The puts an update of a record makes to its list entries: none for keys-only entries, which nothing an update changes is in. */
export function listEntryUpdateWrites<T extends InventoryRecordType>(
  tableName: string,
  organizationId: string,
  type: T,
  record: InventoryRecordTypes[T],
  version: number,
): StoreWrite[] {
  // Item and location entries claim nothing, so an update rewrites them unconditionally.
  return KEYS_ONLY.has(type) ? [] : entryPuts(tableName, organizationId, { type, record } as Listed, version);
}

/**
 * The writes of a rename (docs/inventory.md "Writing the catalog"): the entry that claimed the old
 * natural key deleted (with the claim item of older code, if any), the new one put where absent
 * (taken: `onNaturalKeyTaken`), in the transaction that updates the record.
 */
export function listEntryRenameWrites<T extends 'item' | 'location'>(
  tableName: string,
  organizationId: string,
  type: T,
  record: InventoryRecordTypes[T],
  previousNaturalKey: string,
  version: number,
  onNaturalKeyTaken: () => Error,
): StoreWrite[] {
  return [
    { item: { Delete: { TableName: tableName, Key: naturalKeyClaimKey(organizationId, type, previousNaturalKey) } } },
    { item: { Delete: { TableName: tableName, Key: naturalKeyClaimEntity.key({ organizationId, recordType: type, naturalKey: previousNaturalKey }) } } },
    ...entryPuts(tableName, organizationId, { type, record } as Listed, version, onNaturalKeyTaken),
  ];
}

/** Item and location entries copy the record's version (entries written before they did read as version 1). */
function entryPuts(tableName: string, organizationId: string, listed: Listed, version: number, onNaturalKeyTaken?: () => Error): StoreWrite[] {
  const keysOnly = KEYS_ONLY.has(listed.type);
  const entity = keysOnly ? stockRecordListEntryEntity : inventoryListEntryEntity;
  return entriesOf(listed).map((entry) => {
    const identity = { organizationId, recordType: listed.type, sortKey: entry.sortKey };
    const attributes = {
      ...entry.filterAttributes,
      organizationId,
      recordType: listed.type,
      id: listed.record.id,
      ...(keysOnly ? {} : { record: listed.record, version }),
    };
    const item = entityItem(entity, identity, attributes);
    if (!entry.claimsNaturalKey || onNaturalKeyTaken === undefined) return { item: { Put: { TableName: tableName, Item: item } } };
    return { item: { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } }, onConditionFailed: onNaturalKeyTaken };
  });
}
