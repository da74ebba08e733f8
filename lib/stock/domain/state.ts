import type { Item } from '../../inventory/index.ts';
import type { VersionedRecord } from '../../inventory/index.ts';
import { stockRecordKey, type ItemAtLocation, type StockRecord } from '../../inventory/index.ts';
import { inReceiptOrder, type StockBase, type StockLedger } from './ledger.ts';
import type { ItemStock, StockDocument } from './records.ts';

/** What the stock state reads stored stock and items through (lib/store implements it; so does the import pipeline's `ImportRecords`). */
export interface StockReads {
  /** Stock records by natural key, item totals by item id, documents by key; unknown keys are absent from the map. */
  getByNaturalKeys(
    organizationId: string,
    entity: 'stock-record' | 'item-stock' | 'stock-document',
    naturalKeys: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<unknown>>>;
  /** Items by id; unknown ids are absent from the map. */
  getItemsByIds(organizationId: string, ids: Iterable<string>): Promise<Map<string, Item>>;
  /** The stock records of each item at each location (its places) that hold stock (on-hand above 0), in any order; lots at 0 may be left out. */
  stockRecordsAt(organizationId: string, places: ReadonlyArray<StockPlace>): Promise<StockRecord[]>;
  /** Stock records by natural key and item totals by item id in one batch, when the store can (else two reads). */
  recordsAndTotals?(
    organizationId: string,
    recordKeys: string[],
    itemIds: string[],
  ): Promise<{ records: Map<string, VersionedRecord<StockRecord>>; totals: Map<string, VersionedRecord<ItemStock>> }>;
}

/** One item at one location, whatever the lot. */
export type StockPlace = ItemAtLocation;

const placeKey = (place: StockPlace) => `${place.itemId}#${place.locationId}`;

/**
 * The stored stock one run of a stock-moving import has read (docs/imports.md "Guarantees"):
 * stock records by natural key, item totals, receipts and counts, and items by id. Records are
 * read a batch at a time ahead of the chunk; a lookup of something not read yet is noted as a
 * miss, so the pipeline reads it and decides the unit again. After a commit the state moves on to
 * what the chunk stored; after a conflict it is forgotten and read again.
 */

type Slot<T> = Map<string, T | null>;

interface Misses {
  places: Map<string, StockPlace>;
  stockRecords: Set<string>;
  totals: Set<string>;
  documents: Set<string>;
  items: Set<string>;
}

function noMisses(): Misses {
  return { places: new Map(), stockRecords: new Set(), totals: new Set(), documents: new Set(), items: new Set() };
}

export class StockState implements StockBase {
  private stockRecords: Slot<VersionedRecord<StockRecord>> = new Map();
  private totals: Slot<VersionedRecord<ItemStock>> = new Map();
  private documents: Slot<VersionedRecord<StockDocument>> = new Map();
  private items: Slot<Item> = new Map();
  /** Lots of an item at a location, in receipt order, by place key. */
  private places = new Map<string, string[]>();
  private misses = noMisses();

  constructor(
    private readonly records: StockReads,
    private readonly organizationId: string,
    /** Items the file refers to by sku, already read: no need to read them again by id. */
    knownItems: Iterable<Item>,
    /** Whether stock records are read with their items' totals: not for movements that never change a total (transfers). */
    private readonly options: { totalsWithRecords: boolean } = { totalsWithRecords: true },
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

  lotsAt(itemId: string, locationId: string): readonly string[] | undefined {
    const place = { itemId, locationId };
    const lots = this.places.get(placeKey(place));
    if (!lots) this.misses.places.set(placeKey(place), place);
    return lots;
  }

  /** Stock records (by natural key) and item totals read elsewhere, in one batch with other reads: known, found or not. */
  know(
    wanted: { stockRecords: string[]; itemIds: string[] },
    found: { records: Map<string, VersionedRecord<StockRecord>>; totals: Map<string, VersionedRecord<ItemStock>> },
  ): void {
    fill(this.stockRecords, fresh(this.stockRecords, wanted.stockRecords), found.records);
    fill(this.totals, fresh(this.totals, wanted.itemIds), found.totals);
  }

  /** Documents known not to exist without a read: a new change's own, whose key holds its new id. */
  assumeAbsent(wanted: { documents: string[] }): void {
    for (const key of wanted.documents) if (!this.documents.has(key)) this.documents.set(key, null);
  }

  /** Whether a lookup since the last read asked for something not read yet. */
  hasMisses(): boolean {
    const { places, stockRecords, totals, documents, items } = this.misses;
    return places.size + stockRecords.size + totals.size + documents.size + items.size > 0;
  }

  async readMisses(): Promise<void> {
    const { places, stockRecords, totals, documents, items } = this.misses;
    this.misses = noMisses();
    await this.read({ places: [...places.values()], stockRecords: [...stockRecords], itemIds: [...totals], documents: [...documents], items: [...items] });
  }

  /**
   * Reads what is not read yet: the lots of each place (item at a location) with their stock
   * records, stock records by natural key with their items' totals, totals of `itemIds`,
   * documents by key and items by id.
   */
  async read(wanted: { places?: StockPlace[]; stockRecords?: string[]; itemIds?: string[]; documents?: string[]; items?: string[] }): Promise<void> {
    const { records, organizationId } = this;
    const recordKeys = fresh(this.stockRecords, wanted.stockRecords);
    const itemKeys = fresh(this.items, wanted.items);
    const documentKeys = fresh(this.documents, wanted.documents);
    // The totals the records' items need are known from their keys: read with them where the store can.
    const earlyTotals =
      records.recordsAndTotals && recordKeys.length
        ? fresh(this.totals, [...(wanted.itemIds ?? []), ...(this.options.totalsWithRecords ? recordKeys.map(itemOfKey) : [])])
        : [];
    const [stock, items, documents] = await Promise.all([
      earlyTotals.length && records.recordsAndTotals
        ? records.recordsAndTotals(organizationId, recordKeys, earlyTotals)
        : recordKeys.length
          ? records.getByNaturalKeys(organizationId, 'stock-record', recordKeys)
          : new Map(),
      itemKeys.length ? records.getItemsByIds(organizationId, itemKeys) : new Map<string, Item>(),
      documentKeys.length ? records.getByNaturalKeys(organizationId, 'stock-document', documentKeys) : new Map(),
    ]);
    if (stock instanceof Map) fill(this.stockRecords, recordKeys, stock as Map<string, VersionedRecord<StockRecord>>);
    else {
      fill(this.stockRecords, recordKeys, stock.records);
      fill(this.totals, earlyTotals, stock.totals);
    }
    fill(this.items, itemKeys, items);
    fill(this.documents, documentKeys, documents as Map<string, VersionedRecord<StockDocument>>);
    const listedKeys = await this.readPlaces(wanted.places ?? []);
    // Each item whose stock may move needs its total (the low-stock rule is decided on it), unless
    // its movements never change the total; a stock record's natural key starts with its item's id.
    const movedItems = this.options.totalsWithRecords ? [...recordKeys, ...listedKeys].map(itemOfKey) : [];
    const totalKeys = fresh(this.totals, [...(wanted.itemIds ?? []), ...movedItems]);
    if (totalKeys.length)
      fill(this.totals, totalKeys, (await records.getByNaturalKeys(organizationId, 'item-stock', totalKeys)) as Map<string, VersionedRecord<ItemStock>>);
  }

  /**
   * Lists the lots of each place whose item is tracked by lot (another item has no lots to draw)
   * that hold stock, in receipt order, and reads the stock records listed by key, for the versions
   * a commit is conditioned on; lots at 0 are not read (docs/inventory.md "Reservations and
   * available stock"). Gives the keys of the records it read.
   */
  private async readPlaces(wanted: StockPlace[]): Promise<string[]> {
    const places = [
      ...new Map(
        wanted
          .filter((place) => !this.places.has(placeKey(place)) && this.items.get(place.itemId)?.trackingMode === 'lot')
          .map((place) => [placeKey(place), place]),
      ).values(),
    ];
    if (places.length === 0) return [];
    const listed = await this.records.stockRecordsAt(this.organizationId, places);
    for (const place of places) this.places.set(placeKey(place), []);
    for (const record of [...listed].sort(inReceiptOrder)) if (record.lot !== null) this.places.get(placeKey(record))?.push(record.lot);
    const keys = fresh(
      this.stockRecords,
      listed.map((record) => stockRecordKey(record.itemId, record.locationId, record.lot)),
    );
    if (keys.length)
      fill(
        this.stockRecords,
        keys,
        (await this.records.getByNaturalKeys(this.organizationId, 'stock-record', keys)) as Map<string, VersionedRecord<StockRecord>>,
      );
    return keys;
  }

  /** After a commit: what the chunk stored is the state now. */
  advance(ledger: StockLedger): void {
    const { records, totals, documents } = ledger.committed();
    const reordered = new Set<string>();
    for (const stored of records) {
      const { itemId, locationId, lot } = stored.record;
      this.stockRecords.set(stockRecordKey(itemId, locationId, lot), stored);
      // A lot the chunk stocked joins its place's lots: a new one is the newest, one stocked again from 0 (not listed) goes by receipt order.
      const lots = this.places.get(placeKey({ itemId, locationId }));
      if (!lots || lot === null || lots.includes(lot) || stored.record.onHand <= 0) continue;
      lots.push(lot);
      if (stored.version > 1) reordered.add(placeKey({ itemId, locationId }));
    }
    for (const key of reordered) {
      const lots = this.places.get(key) ?? [];
      const [itemId = '', locationId = ''] = key.split('#');
      const inOrder = lots.flatMap((lot) => this.stockRecords.get(stockRecordKey(itemId, locationId, lot))?.record ?? []).sort(inReceiptOrder);
      if (inOrder.length === lots.length)
        this.places.set(
          key,
          inOrder.map((record) => record.lot as string),
        );
    }
    for (const stored of totals) this.totals.set(stored.record.itemId, stored);
    for (const stored of documents) this.documents.set(stored.record.key, stored);
  }

  /** After a conflict: another writer changed stock this run had read; read all of it again when needed. */
  forget(): void {
    this.stockRecords.clear();
    this.totals.clear();
    this.documents.clear();
    this.places.clear();
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

/** Of `keys`, those not read yet, once each. */
/** A stock record's natural key starts with its item's id. */
function itemOfKey(naturalKey: string): string {
  return naturalKey.slice(0, naturalKey.indexOf('#'));
}

function fresh(slot: Map<string, unknown>, keys: Iterable<string> = []): string[] {
  return [...new Set(keys)].filter((key) => !slot.has(key));
}

function fill<T>(slot: Slot<T>, keys: string[], found: Map<string, T>): void {
  for (const key of keys) slot.set(key, found.get(key) ?? null);
}
