// The inventory area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Other areas' adapters reach them through ./index.ts.
import { defineEntity } from '../../platform/dynamo/entity.ts';

/**
 * Each declaration is marked pure, so a function bundles only the entities its stores use
 * (docs/performance.md "Bundles"). Organization ids are part of every key, so no query can
 * cross tenants.
 */

/** The organization's list of one inventory record type: entries sorted by what its filters read (lib/inventory/store/inventory-lists.ts). */
export const inventoryListOf = (organizationId: string, recordType: string) => `ORG#${organizationId}#LIST#${recordType}`;

/** Sort-key prefixes of the lists (lib/inventory/store/inventory-lists.ts). */
export const LIST_PREFIXES = { sku: 'SKU', code: 'CODE', stockByItem: 'ITEM', stockByLocation: 'LOC', movementAt: 'AT' } as const;

/** `<prefix>#<first>#` (a prefix range) …, up to the full key when the lot is given (`null`: no lot). */
function stockKey(prefix: string, first: string, second?: string, lot?: string | null): string {
  if (second === undefined) return `${prefix}#${first}#`;
  if (lot === undefined) return `${prefix}#${first}#${second}#`;
  return `${prefix}#${first}#${second}#${lot ?? ''}`;
}

export const listSortKeys = {
  item: (sku: string) => `${LIST_PREFIXES.sku}#${sku}`,
  location: (code: string) => `${LIST_PREFIXES.code}#${code}`,
  /** Ids never contain '#'; a lot is free text, so it goes last. */
  stockByItem: (itemId: string, locationId?: string, lot?: string | null) => stockKey(LIST_PREFIXES.stockByItem, itemId, locationId, lot),
  stockByLocation: (locationId: string, itemId?: string, lot?: string | null) => stockKey(LIST_PREFIXES.stockByLocation, locationId, itemId, lot),
  /** `AT#<occurredAt>#<movementId>`: a movement's sort key in its list. */
  movement: (occurredAt: string, movementId: string) => `${LIST_PREFIXES.movementAt}#${occurredAt}#${movementId}`,
};

/** An inventory record (item, location, stock record) by its id; ids carry their type prefix. */
export const inventoryRecordEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; id: string }>({
  type: 'inventory-record',
  schemaVersion: 2,
  key: ({ organizationId, id }) => ({ pk: `ORG#${organizationId}#${id}`, sk: 'RECORD' }),
});

/** The claim of a natural key (sku, location code, item × location × lot) as older code wrote it: names the record's id. */
export const naturalKeyClaimEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; naturalKey: string }>({
  type: 'natural-key',
  schemaVersion: 1,
  key: ({ organizationId, recordType, naturalKey }) => ({ pk: `ORG#${organizationId}#NK#${recordType}#${naturalKey}`, sk: 'KEY' }),
});

/** A stock record's movements, oldest first (gsi1 for a movement's first leg, gsi2 for a transfer's second). */
export const ledgerOf = (organizationId: string, stockRecordId: string) => `ORG#${organizationId}#LEDGER#${stockRecordId}`;
/** Sort-key prefix of a stock record's movements in gsi1 and gsi2. */
export const LEDGER_PREFIX = 'MOV';
export const ledgerSortKey = (occurredAt: string, movementId: string) => `${LEDGER_PREFIX}#${occurredAt}#${movementId}`;

/**
 * A movement (docs/inventory.md "The stock model"): ONE item in the organization's movement list,
 * which is its primary key, holding the whole movement (`record`), the list's filter attributes
 * and its legs. The ledger reads it through index keys on the same item: gsi1 for the first (or
 * only) leg's stock record, gsi2 for a transfer's second. Schema 2 was one item per leg (still
 * read through gsi1: lib/inventory/store/movements-store.ts). Its id carries its time, so the id gives the key.
 */
export const movementEntity = /* @__PURE__ */ defineEntity<
  { organizationId: string; id: string; occurredAt: string; stockRecordIds: readonly string[] },
  { organizationId: string; id: string; occurredAt: string }
>({
  type: 'movement',
  schemaVersion: 3,
  key: ({ organizationId, id, occurredAt }) => ({ pk: inventoryListOf(organizationId, 'movement'), sk: listSortKeys.movement(occurredAt, id) }),
  indexKeys: ({ organizationId, id, occurredAt, stockRecordIds: [first, second] }) => ({
    ...(first === undefined ? {} : { gsi1pk: ledgerOf(organizationId, first), gsi1sk: ledgerSortKey(occurredAt, id) }),
    ...(second === undefined ? {} : { gsi2pk: ledgerOf(organizationId, second), gsi2sk: ledgerSortKey(occurredAt, id) }),
  }),
});

/**
 * An inventory record's entry in its type's list, in the base table so every list read is
 * strongly consistent; the sort key is what the list's filters read (lib/inventory/store/inventory-lists.ts).
 */
export const inventoryListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; sortKey: string }>({
  type: 'inventory-list-entry',
  schemaVersion: 1,
  key: ({ organizationId, recordType, sortKey }) => ({ pk: inventoryListOf(organizationId, recordType), sk: sortKey }),
});

/**
 * A stock record's list entry, keys only: its sort key, the record's id and lot (what never
 * changes and a filter reads); the record itself is read by id (docs/inventory.md "Reading
 * inventory"). Version 1 entries held a full copy of the record, which readers no longer use.
 */
export const stockRecordListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; sortKey: string }>({
  type: 'inventory-list-entry',
  schemaVersion: 2,
  key: ({ organizationId, recordType, sortKey }) => ({ pk: inventoryListOf(organizationId, recordType), sk: sortKey }),
});

/**
 * The lots of one item at one location that may hold stock (lib/inventory/store/stocked-lots.ts): one
 * partition per place, an entry per lot (`LOT#<lot>`) and the mark that the place is indexed.
 */
export const stockedLotsOf = (organizationId: string, itemId: string, locationId: string) => `ORG#${organizationId}#STOCKED#${itemId}#${locationId}`;

/**
 * A lot of an item at a location that may hold stock: put in the same transaction as the write
 * that takes its stock record from 0 to more, removed by a reader that finds the record at 0
 * (lib/inventory/store/stocked-lots.ts). Holds the record's id.
 */
export const stockedLotEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; itemId: string; locationId: string; lot: string }>({
  type: 'stocked-lot',
  schemaVersion: 1,
  key: ({ organizationId, itemId, locationId, lot }) => ({ pk: stockedLotsOf(organizationId, itemId, locationId), sk: `LOT#${lot}` }),
});

/** The mark that a place's stocked lots are all indexed: written by the first read of the place (lib/inventory/store/stocked-lots.ts). */
export const stockedPlaceMarkEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; itemId: string; locationId: string }>({
  type: 'stocked-place-mark',
  schemaVersion: 1,
  key: ({ organizationId, itemId, locationId }) => ({ pk: stockedLotsOf(organizationId, itemId, locationId), sk: 'INDEXED' }),
});

/**
 * A movement as a whole as older code stored it, under its id (its list entry and legs, `LEG#<stock
 * record>`, were items of their own). Never written now; `GET /v1/movements/{id}` falls back to it.
 * Its key has an inventory record's shape; the id's `mov_` prefix keeps them apart.
 */
export const legacyMovementRecordEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; id: string }>({
  type: 'movement-record',
  schemaVersion: 1,
  key: ({ organizationId, id }) => ({ pk: `ORG#${organizationId}#${id}`, sk: 'RECORD' }),
});

/** An item's on-hand across all its stock records (what low-stock is decided on). */
export const itemStockEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; itemId: string }>({
  type: 'item-stock',
  schemaVersion: 1,
  key: ({ organizationId, itemId }) => ({ pk: `ORG#${organizationId}#${itemId}`, sk: 'ONHAND' }),
});
