import type { Item } from '../inventory/item.ts';
import type { VersionedRecord } from '../inventory/records.ts';
import { stockRecordKey, type StockRecord } from '../inventory/stock.ts';
import type { StockBase, StockLedger } from './ledger.ts';
import type { ItemStock, StockDocument } from './records.ts';

/** What the stock state reads stored stock and items through (lib/store implements it; so does the import pipeline's `ImportRecords`). */
export interface StockReads {
  /** Stock records by natural key, item totals by item id, documents by key; unknown keys are absent from the map. */
  getByNaturalKeys(organizationId: string, entity: 'stock-record' | 'item-stock' | 'stock-document', naturalKeys: Iterable<string>): Promise<Map<string, VersionedRecord<unknown>>>;
  /** Items by id; unknown ids are absent from the map. */
  getItemsByIds(organizationId: string, ids: Iterable<string>): Promise<Map<string, Item>>;
}

/**
 * The stored stock one run of a stock-moving import has read (docs/imports.md "Guarantees"):
 * stock records by natural key, item totals, receipts and counts, and items by id. Records are
 * read a batch at a time ahead of the chunk; a lookup of something not read yet is noted as a
 * miss, so the pipeline reads it and decides the unit again. After a commit the state moves on to
 * what the chunk stored; after a conflict it is forgotten and read again.
 */

type Slot<T> = Map<string, T | null>;

interface Misses {
  stockRecords: Set<string>;
  totals: Set<string>;
  documents: Set<string>;
  items: Set<string>;
}

function noMisses(): Misses {
  return { stockRecords: new Set(), totals: new Set(), documents: new Set(), items: new Set() };
}

export class StockState implements StockBase {
  private stockRecords: Slot<VersionedRecord<StockRecord>> = new Map();
  private totals: Slot<VersionedRecord<ItemStock>> = new Map();
  private documents: Slot<VersionedRecord<StockDocument>> = new Map();
  private items: Slot<Item> = new Map();
  private misses = noMisses();

  constructor(
    private readonly records: StockReads,
    private readonly organizationId: string,
    /** Items the file refers to by sku, already read: no need to read them again by id. */
    knownItems: Iterable<Item>,
  ) {
    for (const item of knownItems) this.items.set(item.id, item);
  }

  /** Items read meanwhile (e.g. the references of the next rows): no need to read them again by id. */
  remember(items: Iterable<Item>): void {
    for (const item of items) this.items.set(item.id, item);
  }

  stockRecord(naturalKey: string): VersionedRecord<StockRecord> | undefined {
    return this.lookup(this.stockRecords, naturalKey, this.misses.stockRecords);
  }

  itemStock(itemId: string): VersionedRecord<ItemStock> | undefined {
    return this.lookup(this.totals, itemId, this.misses.totals);
  }

  document(key: string): VersionedRecord<StockDocument> | undefined {
    return this.lookup(this.documents, key, this.misses.documents);
  }

  item(id: string): Item | undefined {
    return this.lookup(this.items, id, this.misses.items);
  }

  /** Whether a lookup since the last read asked for something not read yet. */
  hasMisses(): boolean {
    const { stockRecords, totals, documents, items } = this.misses;
    return stockRecords.size + totals.size + documents.size + items.size > 0;
  }

  async readMisses(): Promise<void> {
    const { stockRecords, totals, documents, items } = this.misses;
    this.misses = noMisses();
    await this.read({ stockRecords: [...stockRecords], itemIds: [...totals], documents: [...documents], items: [...items] });
  }

  /**
   * Reads what is not read yet: stock records by natural key with their items' totals, totals of
   * `itemIds`, documents by key and items by id.
   */
  async read(wanted: { stockRecords?: string[]; itemIds?: string[]; documents?: string[]; items?: string[] }): Promise<void> {
    const fresh = (slot: Slot<unknown>, keys: Iterable<string> = []) => [...new Set(keys)].filter((key) => !slot.has(key));
    const { records, organizationId } = this;
    const recordKeys = fresh(this.stockRecords, wanted.stockRecords);
    const itemKeys = fresh(this.items, wanted.items);
    const documentKeys = fresh(this.documents, wanted.documents);
    const [stock, items, documents] = await Promise.all([
      recordKeys.length ? records.getByNaturalKeys(organizationId, 'stock-record', recordKeys) : new Map(),
      itemKeys.length ? records.getItemsByIds(organizationId, itemKeys) : new Map<string, Item>(),
      documentKeys.length ? records.getByNaturalKeys(organizationId, 'stock-document', documentKeys) : new Map(),
    ]);
    fill(this.stockRecords, recordKeys, stock as Map<string, VersionedRecord<StockRecord>>);
    fill(this.items, itemKeys, items);
    fill(this.documents, documentKeys, documents as Map<string, VersionedRecord<StockDocument>>);
    // Each item whose stock may move needs its total (the low-stock rule is decided on it); a
    // stock record's natural key starts with its item's id.
    const totalKeys = fresh(this.totals, [...(wanted.itemIds ?? []), ...recordKeys.map((key) => key.slice(0, key.indexOf('#')))]);
    if (totalKeys.length) fill(this.totals, totalKeys, (await records.getByNaturalKeys(organizationId, 'item-stock', totalKeys)) as Map<string, VersionedRecord<ItemStock>>);
  }

  /** After a commit: what the chunk stored is the state now. */
  advance(ledger: StockLedger): void {
    const { records, totals, documents } = ledger.committed();
    for (const stored of records) this.stockRecords.set(stockRecordKey(stored.record.itemId, stored.record.locationId, stored.record.lot), stored);
    for (const stored of totals) this.totals.set(stored.record.itemId, stored);
    for (const stored of documents) this.documents.set(stored.record.key, stored);
  }

  /** After a conflict: another writer changed stock this run had read; read all of it again when needed. */
  forget(): void {
    this.stockRecords.clear();
    this.totals.clear();
    this.documents.clear();
    this.misses = noMisses();
  }

  private lookup<T>(slot: Slot<T>, key: string, misses: Set<string>): T | undefined {
    const value = slot.get(key);
    if (value === undefined) {
      misses.add(key);
      return undefined;
    }
    return value ?? undefined;
  }
}

function fill<T>(slot: Slot<T>, keys: string[], found: Map<string, T>): void {
  for (const key of keys) slot.set(key, found.get(key) ?? null);
}
