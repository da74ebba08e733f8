import { UniqueKeyTakenError } from '../../platform/core/errors.ts';
import { newId, type IdPrefix } from '../../platform/core/ids.ts';
import type { Item } from './item.ts';
import type { Location } from './location.ts';
import { stockRecordKey, type Movement, type MovementLeg, type MovementRecord, type StockRecord } from './stock.ts';

/**
 * The inventory records the API names by id, what each one's id prefix and natural key are, and
 * the port through which the domain reads and writes them. BOMs, builds, imports and
 * attachments use this port; none of them owns these records.
 */

export interface InventoryRecordTypes {
  item: Item;
  location: Location;
  'stock-record': StockRecord;
}

export type InventoryRecordType = keyof InventoryRecordTypes;

interface RecordTypeRules<R> {
  idPrefix: IdPrefix;
  /** Problem-code area and natural-key name, e.g. `items` and `sku` → `customer-api.items.sku-taken`. */
  area: string;
  naturalKeyName: string;
  /** The natural key: unique per organization, never changed by an update. */
  naturalKeyOf(record: R): string;
}

export const INVENTORY_RECORD_TYPES: { [T in InventoryRecordType]: RecordTypeRules<InventoryRecordTypes[T]> } = {
  item: { idPrefix: 'itm', area: 'items', naturalKeyName: 'sku', naturalKeyOf: (item) => item.sku },
  location: { idPrefix: 'loc', area: 'locations', naturalKeyName: 'code', naturalKeyOf: (location) => location.code },
  'stock-record': {
    idPrefix: 'stk',
    area: 'stock',
    naturalKeyName: 'stock-record',
    naturalKeyOf: (stock) => stockRecordKey(stock.itemId, stock.locationId, stock.lot),
  },
};

/**
 * Storage actions one write of a record takes (docs/inventory.md "Reading inventory"): a create
 * puts the record and its list entries, one of which claims its natural key (docs/architecture.md
 * "Storage: the entity layer"); an update puts the
 * record, and rewrites the list entries of items and locations, which hold the whole record. A
 * stock record's entries hold only keys and never change, so its update writes the record alone.
 * What a chunk counts against the transaction limit; the store's writes match it (a test checks).
 */
export const STORED_ENTRIES_PER_WRITE: { readonly [T in InventoryRecordType]: { readonly create: number; readonly update: number } } = {
  item: { create: 2, update: 2 },
  location: { create: 2, update: 2 },
  'stock-record': { create: 3, update: 1 },
};

export function newRecordId(type: InventoryRecordType, now?: number): string {
  return newId(INVENTORY_RECORD_TYPES[type].idPrefix, now);
}

export function naturalKeyOf<T extends InventoryRecordType>(type: T, record: InventoryRecordTypes[T]): string {
  return INVENTORY_RECORD_TYPES[type].naturalKeyOf(record);
}

/** A record with the version it was read at: an update commits only over that version. */
export interface VersionedRecord<R> {
  record: R;
  version: number;
}

/** The natural key is taken: another record of the organization has it (409 `customer-api.<area>.<key>-taken`). */
export class NaturalKeyTakenError extends UniqueKeyTakenError {
  constructor(
    readonly recordType: InventoryRecordType,
    readonly naturalKey: string,
  ) {
    const rules = INVENTORY_RECORD_TYPES[recordType];
    super(409, `customer-api.${rules.area}.${rules.naturalKeyName}-taken`, 'Conflict', {
      detail: `A ${recordType} with ${rules.naturalKeyName} '${naturalKey}' already exists.`,
    });
    this.name = 'NaturalKeyTakenError';
  }
}

/**
 * Reads are strongly consistent (a write may depend on them); many ids or keys are read in
 * batches. Writes are opaque actions for the one-transaction command writer.
 */
export interface InventoryRecords<Write = unknown> {
  getById<T extends InventoryRecordType>(organizationId: string, type: T, id: string): Promise<VersionedRecord<InventoryRecordTypes[T]> | undefined>;
  /** By id; unknown ids (and ids of another type or organization) are absent from the map. */
  getByIds<T extends InventoryRecordType>(
    organizationId: string,
    type: T,
    ids: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<InventoryRecordTypes[T]>>>;
  /** By natural key; unknown keys are absent from the map. */
  getByNaturalKeys<T extends InventoryRecordType>(
    organizationId: string,
    type: T,
    naturalKeys: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<InventoryRecordTypes[T]>>>;
  /** Creates the record and claims its natural key; fails with NaturalKeyTakenError if another record has it. */
  createWrites<T extends InventoryRecordType>(organizationId: string, type: T, record: InventoryRecordTypes[T]): Write[];
  /**
   * A check, committed with the other writes, that the record exists; when it does not, the
   * commit fails with the error `onMissing` gives (it may look further to explain).
   */
  existsCheck(organizationId: string, type: InventoryRecordType, id: string, onMissing: () => Promise<Error>): Write;
  /** A check, committed with the other writes, that the record is still at `expectedVersion` (`null`: that it still does not exist). */
  unchangedCheck<T extends InventoryRecordType>(organizationId: string, type: T, record: InventoryRecordTypes[T], expectedVersion: number | null): Write;
  /** Replaces the record (and the list entries that copy it) if it is still at `expectedVersion`. Its natural key must not change. */
  updateWrites<T extends InventoryRecordType>(organizationId: string, type: T, record: InventoryRecordTypes[T], expectedVersion: number): Write[];
  /**
   * Stores a movement with its legs (one or two), never changed afterwards: ONE action, which
   * makes it readable by id, listed, and in each leg's stock-record ledger (docs/inventory.md
   * "The stock model"). Its id must be made from its `occurredAt` (`newMovementId`).
   */
  recordMovementWrite(organizationId: string, movement: MovementRecord, legs: readonly MovementLeg[]): Write;
  /** A stock record's movements, oldest first (an index read: eventually consistent). */
  movementsOf(organizationId: string, stockRecordId: string): Promise<Movement[]>;
}
