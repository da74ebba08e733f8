import { NotFoundError } from '../../platform/core/errors.ts';
import type { ItemStock } from './stock.ts';
import type { Item } from './item.ts';
import { INVENTORY_RECORD_TYPES } from './records.ts';
import { availableOf, reservedOf, sumQuantities, type StockRecord } from './stock.ts';

/**
 * The three quantity states of stock (docs/inventory.md "Reading inventory"): `onHand` (what is
 * there; a stock record's `quantity` is its alias), `reserved` (held by active reservations, 0
 * until reservations are written) and `available` (= onHand − reserved; negative only after a
 * count set on-hand below what is reserved). The reads map stored records and totals to these,
 * and `GET /v1/items/{id}/availability` groups an item's records by location and lot
 * (`ItemAvailabilityReads`, apart from lib/inventory/domain/reads.ts so the other reads' functions
 * do not carry it).
 */

export interface QuantityStates {
  onHand: number;
  reserved: number;
  available: number;
}

/** A holder's states: a stock record, an item total, or a sum of them; absent `reserved` is 0. */
export function quantityStates(holder: { onHand: number; reserved?: number }): QuantityStates {
  return { onHand: holder.onHand, reserved: reservedOf(holder), available: availableOf(holder) };
}

/** An item's totals across locations: its stored total, or all 0 when it never held stock (no total yet). */
export function itemTotals(stock: ItemStock | undefined): QuantityStates {
  return quantityStates(stock ?? { onHand: 0 });
}

/** Stock records `GET /v1/items/{id}/availability` reads at most per request. */
export const AVAILABILITY_RECORD_BUDGET = 1000;

/** One stock record as the by-item list names it, in list order (location id, then lot). */
export interface AvailabilityEntry {
  stockRecordId: string;
  locationId: string;
}

/**
 * Which of the entries read one response answers, so that every location in it is whole (all its
 * lots, sums over all of them). `entries` are the item's entries from the request's position on,
 * in list order, at most `budget` + 1; `more` says the list may go on past them (the store read
 * fewer than it asked for only at the end of the list, or at DynamoDB's 1 MB page).
 *
 * - Everything read fits and nothing follows: all of it, not truncated.
 * - Otherwise the last location read may have lots not read yet, so it is left for the next
 *   response (`nextAfterLocationId` is the last location kept) — unless it is the only location
 *   read: then it alone holds more than the budget, and it is answered with its first `budget`
 *   lots, marked `lotsTruncated`, the next response starting after it.
 */
export interface AvailabilityCut {
  /** The stock records to read, in list order. */
  stockRecordIds: string[];
  /** More stock records of the item follow (in locations after `nextAfterLocationId`). */
  truncated: boolean;
  /** Where the next response starts (its `afterLocationId`); null when nothing follows. */
  nextAfterLocationId: string | null;
  /** The one location answered with only its first `budget` lots, if any. */
  lotsTruncatedLocationId: string | null;
}

export function availabilityCut(entries: readonly AvailabilityEntry[], more: boolean, budget = AVAILABILITY_RECORD_BUDGET): AvailabilityCut {
  const read = entries.slice(0, budget);
  const ids = (kept: readonly AvailabilityEntry[]) => kept.map((entry) => entry.stockRecordId);
  const lastLocation = read.at(-1)?.locationId;
  if (lastLocation === undefined || (entries.length <= budget && !more))
    return { stockRecordIds: ids(read), truncated: false, nextAfterLocationId: null, lotsTruncatedLocationId: null };
  // The entry past the budget, when read, says whether the last location read goes on.
  const next = entries[budget];
  if (next !== undefined && next.locationId !== lastLocation)
    return { stockRecordIds: ids(read), truncated: true, nextAfterLocationId: lastLocation, lotsTruncatedLocationId: null };
  const whole = read.filter((entry) => entry.locationId !== lastLocation);
  const lastWhole = whole.at(-1)?.locationId;
  if (lastWhole !== undefined) return { stockRecordIds: ids(whole), truncated: true, nextAfterLocationId: lastWhole, lotsTruncatedLocationId: null };
  return { stockRecordIds: ids(read), truncated: true, nextAfterLocationId: lastLocation, lotsTruncatedLocationId: lastLocation };
}

export interface LotAvailability extends QuantityStates {
  /** Null for stock without a lot (items not tracked by lot have exactly one such entry per location). */
  lot: string | null;
  stockRecordId: string;
}

export interface LocationAvailability extends QuantityStates {
  locationId: string;
  locationCode: string;
  /** Only the first lots are listed, and the sums cover only those (a location over the record budget alone). */
  lotsTruncated: boolean;
  lots: LotAvailability[];
}

export interface ItemAvailability extends QuantityStates {
  itemId: string;
  sku: string;
  locations: LocationAvailability[];
  truncated: boolean;
  nextAfterLocationId: string | null;
}

/**
 * The response of `GET /v1/items/{id}/availability`: the item's stored totals, and its records
 * grouped by location in the order given (list order: location id, then lot), each location's
 * states the exact sums of its lots'.
 */
export function itemAvailability(
  item: { id: string; sku: string },
  stock: ItemStock | undefined,
  records: readonly StockRecord[],
  cut: AvailabilityCut,
): ItemAvailability {
  const locations = new Map<string, { locationCode: string; lots: LotAvailability[] }>();
  for (const record of records) {
    const location = locations.get(record.locationId) ?? { locationCode: record.locationCode, lots: [] };
    location.lots.push({ lot: record.lot, stockRecordId: record.id, ...quantityStates(record) });
    locations.set(record.locationId, location);
  }
  return {
    itemId: item.id,
    sku: item.sku,
    ...itemTotals(stock),
    locations: [...locations].map(([locationId, { locationCode, lots }]) => {
      const onHand = sumQuantities(lots.map((lot) => lot.onHand));
      const reserved = sumQuantities(lots.map((lot) => lot.reserved));
      return { locationId, locationCode, ...quantityStates({ onHand, reserved }), lotsTruncated: locationId === cut.lotsTruncatedLocationId, lots };
    }),
    truncated: cut.truncated,
    nextAfterLocationId: cut.nextAfterLocationId,
  };
}

/** What `GET /v1/items/{id}/availability` reads through. */
export interface ItemAvailabilityStorage {
  /**
   * The item's stock records as its list names them (location id, then lot), from the first
   * location after `afterLocationId` on, at most `limit`; `more`: the list may go on.
   */
  stockRecordEntriesOfItem(
    organizationId: string,
    itemId: string,
    afterLocationId: string | undefined,
    limit: number,
  ): Promise<{ entries: AvailabilityEntry[]; more: boolean }>;
  /**
   * The item, its total and these stock records of it, read together (one BatchGetItem for up to
   * 98 records); undefined when there is no such item. Records not found are absent from the map.
   */
  itemWithStockRecords(
    organizationId: string,
    itemId: string,
    stockRecordIds: readonly string[],
  ): Promise<{ item: Item; stock: ItemStock | undefined; records: Map<string, StockRecord> } | undefined>;
}

export class ItemAvailabilityReads {
  /** `budget`: the stock records one response reads at most (tests pass fewer). */
  constructor(
    private readonly storage: ItemAvailabilityStorage,
    private readonly budget = AVAILABILITY_RECORD_BUDGET,
  ) {}

  /**
   * The item's totals, and its stock records by location and lot, at most `budget` of them
   * (`AVAILABILITY_RECORD_BUDGET`), in whole locations from the first after
   * `afterLocationId` on (`availabilityCut`). Two requests up to 98 records: the Query of the
   * item's list entries, then one BatchGetItem of the item, its total and the records. An id of
   * another organization, of another record type or of nothing is the inventory reads' 404.
   */
  async availability(organizationId: string, itemId: string, afterLocationId?: string): Promise<ItemAvailability> {
    const notFound = () => new NotFoundError('inventory', 'No item with this id.');
    // An id of another type names no item: no read.
    if (!itemId.startsWith(`${INVENTORY_RECORD_TYPES.item.idPrefix}_`)) throw notFound();
    const { entries, more } = await this.storage.stockRecordEntriesOfItem(organizationId, itemId, afterLocationId, this.budget + 1);
    const cut = availabilityCut(entries, more, this.budget);
    const found = await this.storage.itemWithStockRecords(organizationId, itemId, cut.stockRecordIds);
    if (found === undefined) throw notFound();
    const records = cut.stockRecordIds.flatMap((id) => found.records.get(id) ?? []);
    return itemAvailability(found.item, found.stock, records, cut);
  }
}
