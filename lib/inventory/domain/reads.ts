import { NotFoundError } from '../../platform/core/errors.ts';
import type { CursorBinding, CursorCodec } from '../../platform/pagination/cursor.ts';
import { cursorPage, type ListPage, type PageOf } from '../../platform/pagination/page.ts';
import { quantityStates } from './availability.ts';
import type { Item } from './item.ts';
import type { RecordStatus } from './item.ts';
import type { Location } from './location.ts';
import type { InventoryRecordType, InventoryRecordTypes, VersionedRecord } from './records.ts';
import type { MovementRecord, MovementType, StockRecord } from './stock.ts';

/**
 * Reads of inventory records by id and by filter (docs/inventory.md "Reading inventory"). Every
 * read sees every committed write; a page is one storage Query (a page of stock records adds the
 * reads of its records by id). An id of another organization, of another record type or of
 * nothing is the same 404. Stock records show the three quantity states, `onHand`, `reserved`
 * and `available` (./availability.ts). Items, which add their totals, are read by ./item-reads.ts.
 */

export interface ItemFilter {
  sku?: string | undefined;
  q?: string | undefined;
  /** Leave archived items out (`GET /v1/items` without `includeArchived=true`); other readers see every item. */
  activeOnly?: boolean | undefined;
}

export interface LocationFilter {
  code?: string | undefined;
  includeArchived?: boolean | undefined;
  /** The parent's id; an id of no location of the organization lists nothing. */
  parentId?: string | undefined;
}

/** What the storage filters locations by: the parent as the location names it, by code. */
export interface LocationListFilter {
  code?: string | undefined;
  parentCode?: string | undefined;
  /** Leave archived locations out (as ItemFilter's). */
  activeOnly?: boolean | undefined;
}

/** A page of items or locations, with each record's version by id (older entries: 1). */
export type VersionedPage<R> = PageOf<R> & { versions?: Map<string, number> };

export interface StockRecordFilter {
  itemId?: string | undefined;
  locationId?: string | undefined;
  lot?: string | undefined;
  nonZero?: boolean | undefined;
}

export interface MovementFilter {
  itemId?: string | undefined;
  locationId?: string | undefined;
  type?: MovementType | undefined;
  /** Inclusive. */
  fromUtc?: string | undefined;
  /** Exclusive. */
  toUtc?: string | undefined;
}

/** `after`: the position a cursor carried (the last sort key served or examined). */
export interface InventoryReadStorage {
  record<T extends InventoryRecordType>(organizationId: string, type: T, id: string): Promise<InventoryRecordTypes[T] | undefined>;
  /** The record with its version; optional for readers that never answer versions (exports). */
  versioned?<T extends InventoryRecordType>(organizationId: string, type: T, id: string): Promise<VersionedRecord<InventoryRecordTypes[T]> | undefined>;
  movement(organizationId: string, id: string): Promise<MovementRecord | undefined>;
  items(organizationId: string, filter: ItemFilter, after: string | undefined, limit: number): Promise<VersionedPage<Item>>;
  locations(organizationId: string, filter: LocationListFilter, after: string | undefined, limit: number): Promise<VersionedPage<Location>>;
  stockRecords(organizationId: string, filter: StockRecordFilter, after: string | undefined, limit: number): Promise<PageOf<StockRecord>>;
  movements(organizationId: string, filter: MovementFilter, after: string | undefined, limit: number): Promise<PageOf<MovementRecord>>;
}

/** A stock record as the reads answer it: the fields `stock.changed` carries. */
export interface StockRecordView {
  id: string;
  itemId: string;
  sku: string;
  locationId: string;
  locationCode: string;
  lot: string | null;
  /** On-hand: the alias `onHand` was added beside, kept for the clients that read it. */
  quantity: number;
  onHand: number;
  reserved: number;
  available: number;
  updatedAt: string;
}

/** A location as the reads and writes answer it: the stored location, its `status` and its `version`. */
export type LocationView = Omit<Location, 'status'> & { status: RecordStatus; version: number };

export function locationView(location: Location, version = 1): LocationView {
  const { id, code, name, type, parentCode, createdAt, updatedAt } = location;
  return { id, code, name, type, parentCode, status: location.status ?? 'active', version, createdAt, updatedAt };
}

/** The strong ETag of an item's or location's version (`"3"`): what `If-Match` names. */
export function versionETag(version: number): string {
  return `"${version}"`;
}

export function stockRecordView(stock: StockRecord): StockRecordView {
  const { id, itemId, sku, locationId, locationCode, lot, updatedAt } = stock;
  return { id, itemId, sku, locationId, locationCode, lot, quantity: stock.onHand, ...quantityStates(stock), updatedAt };
}

export function movementView(movement: MovementRecord): MovementRecord {
  const { id, type, itemId, sku, fromLocationId, toLocationId, quantity, lot, reference, occurredAt } = movement;
  return { id, type, itemId, sku, fromLocationId, toLocationId, quantity, lot, reference, occurredAt };
}

/** The form movement times are stored in (`toISOString`), so they compare as strings. */
function utcMilliseconds(dateTime: string): string {
  return new Date(dateTime).toISOString();
}

interface ListQuery {
  limit: number;
  cursor?: string;
}

/** What `GET …/{id}` names; not found is `customer-api.inventory.not-found` for every one (the routes' tag). */
type ReadRecordType = InventoryRecordType | 'movement';

export class InventoryReads {
  /** `cursors` is needed only by the lists. */
  constructor(
    private readonly storage: InventoryReadStorage,
    private readonly cursors?: CursorCodec,
  ) {}

  /** Archived locations too: an archived location stays readable by id. */
  async location(organizationId: string, id: string): Promise<LocationView> {
    if (!this.storage.versioned) throw new Error('Reading a location by id needs versioned reads');
    const found = this.found('location', await this.storage.versioned(organizationId, 'location', id));
    return locationView(found.record, found.version);
  }

  async stockRecord(organizationId: string, id: string): Promise<StockRecordView> {
    return stockRecordView(this.found('stock-record', await this.storage.record(organizationId, 'stock-record', id)));
  }

  async movement(organizationId: string, id: string): Promise<MovementRecord> {
    return movementView(this.found('movement', await this.storage.movement(organizationId, id)));
  }

  /**
   * A location names its parent by code, so `parentId` is read first (one GetItem) and the page
   * filters on that code; an unknown or foreign parent lists nothing.
   */
  locations(organizationId: string, filter: LocationFilter, query: ListQuery): Promise<ListPage<LocationView>> {
    const { code, parentId } = filter;
    const activeOnly = filter.includeArchived !== true;
    if (!this.cursors) throw new Error('Paging inventory lists needs a cursor codec');
    const binding = { organizationId, endpoint: 'GET /v1/locations', filters: { ...filter } };
    return cursorPage(this.cursors, binding, query.cursor, async (after) => {
      const page = await (async (): Promise<VersionedPage<Location>> => {
        if (parentId === undefined) return this.storage.locations(organizationId, { code, activeOnly }, after, query.limit);
        const parent = await this.storage.record(organizationId, 'location', parentId);
        if (parent === undefined) return { items: [], more: false };
        return this.storage.locations(organizationId, { code, parentCode: parent.code, activeOnly }, after, query.limit);
      })();
      return { ...page, items: page.items.map((location) => locationView(location, page.versions?.get(location.id) ?? 1)) };
    });
  }

  stockRecords(organizationId: string, filter: StockRecordFilter, query: ListQuery): Promise<ListPage<StockRecordView>> {
    const binding = { organizationId, endpoint: 'GET /v1/stock-records', filters: { ...filter } };
    return this.paged(binding, query, stockRecordView, (after) => this.storage.stockRecords(organizationId, filter, after, query.limit));
  }

  /** `fromUtc` and `toUtc` may carry any offset: they are compared as UTC instants. */
  movements(organizationId: string, requested: MovementFilter, query: ListQuery): Promise<ListPage<MovementRecord>> {
    const { fromUtc, toUtc, ...rest } = requested;
    const filter: MovementFilter = {
      ...rest,
      ...(fromUtc === undefined ? {} : { fromUtc: utcMilliseconds(fromUtc) }),
      ...(toUtc === undefined ? {} : { toUtc: utcMilliseconds(toUtc) }),
    };
    const binding = { organizationId, endpoint: 'GET /v1/movements', filters: { ...filter } };
    return this.paged(binding, query, movementView, (after) => this.storage.movements(organizationId, filter, after, query.limit));
  }

  private found<R>(type: ReadRecordType, record: R | undefined): R {
    if (record === undefined) throw new NotFoundError('inventory', `No ${type.replace('-', ' ')} with this id.`);
    return record;
  }

  private async paged<S, V>(
    binding: CursorBinding,
    query: ListQuery,
    view: (stored: S) => V,
    read: (after: string | undefined) => Promise<PageOf<S>>,
  ): Promise<ListPage<V>> {
    if (!this.cursors) throw new Error('Paging inventory lists needs a cursor codec');
    const page = await cursorPage(this.cursors, binding, query.cursor, read);
    return { data: page.data.map(view), page: page.page };
  }
}
