import { lineNeed, type BomContent } from '../../boms/index.ts';
import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { stockRecordKey, sumQuantities } from '../../inventory/index.ts';
import type { StockLedger, StockSide } from '../../stock/index.ts';
import type { StockPlace } from '../../stock/index.ts';
import type { Build, BuildDraw, ShortBuildLine } from './build.ts';

/**
 * What a build needs and where it draws it from (docs/boms.md "Builds"): each BOM line needs
 * quantity × build quantity ÷ outputQuantity × (1 + scrapPercent/100) of its component, drawn
 * from the sources the build named for it, in order, or else at the build's location: without a
 * lot, or, tracked by lot, its lots there oldest first (the record that first received stock).
 */

export interface BuildNeed {
  line: number;
  item: Item;
  quantity: number;
  /** The places named or the default place, in order; or the lots at a location, oldest first. */
  from: StockSide[] | { lotsAt: Location };
}

export function needsOf(build: Build, content: BomContent, items: ReadonlyMap<string, Item>, locations: ReadonlyMap<string, Location>): BuildNeed[] {
  const at = locations.get(build.locationId);
  if (!at) throw new Error(`Build ${build.id} names a location that does not exist`);
  return content.lines.map((line, index) => {
    const item = items.get(line.itemId);
    if (!item) throw new Error(`Build ${build.id} needs an item that does not exist`);
    const named = build.sources.filter((source) => source.itemId === line.itemId);
    const from =
      named.length > 0
        ? named.map((source) => ({ location: placeOf(locations, source.locationId), lot: source.lot }))
        : item.trackingMode === 'lot'
          ? { lotsAt: at }
          : [{ location: at, lot: null }];
    return { line: index, item, quantity: lineNeed(line, content, build.quantity), from };
  });
}

function placeOf(locations: ReadonlyMap<string, Location>, id: string): Location {
  const location = locations.get(id);
  if (!location) throw new Error(`A build source names a location that does not exist`);
  return location;
}

/** What the stock state must read to decide the needs: records by key, lots of places, item totals. */
export function readsOf(needs: readonly BuildNeed[]): { stockRecords: string[]; places: StockPlace[]; itemIds: string[] } {
  const stockRecords: string[] = [];
  const places: StockPlace[] = [];
  for (const { item, from } of needs) {
    if (Array.isArray(from)) stockRecords.push(...from.map((side) => stockRecordKey(item.id, side.location.id, side.lot)));
    else places.push({ itemId: item.id, locationId: from.lotsAt.id });
  }
  return { stockRecords, places, itemIds: [...new Set(needs.map((need) => need.item.id))] };
}

/**
 * Holds what each need still lacks (`held`: what stored slices already hold, by line) on the
 * ledger, drawing only on available stock. Gives the draws, in line order, and the lines that
 * cannot get all they need (nothing is then to be committed).
 */
export function holdNeeds(
  needs: readonly BuildNeed[],
  held: ReadonlyMap<number, number>,
  ledger: StockLedger,
  build: Build,
  occurredAt: string,
): { draws: BuildDraw[]; short: ShortBuildLine[] } {
  const draws: BuildDraw[] = [];
  const short: ShortBuildLine[] = [];
  for (const need of needs) {
    const already = held.get(need.line) ?? 0;
    let left = sumQuantities([need.quantity, -already]);
    const sides = Array.isArray(need.from)
      ? need.from
      : ledger.lotsWithStockAt(need.item, need.from.lotsAt).map((lot) => ({ location: (need.from as { lotsAt: Location }).lotsAt, lot }));
    for (const side of sides) {
      if (left <= 0) break;
      const take = Math.min(left, ledger.available(need.item, side));
      if (take <= 0) continue;
      const hold = ledger.hold({ item: need.item, side, quantity: take, reservationId: build.id, occurredAt });
      if (!hold.ok) throw new Error('A hold never takes more than is available');
      draws.push({ line: need.line, itemId: need.item.id, locationId: side.location.id, lot: side.lot, stockRecordId: hold.record.id, quantity: take });
      left = sumQuantities([left, -take]);
    }
    if (left > 0)
      short.push({ line: need.line, itemId: need.item.id, sku: need.item.sku, needed: need.quantity, available: sumQuantities([need.quantity, -left]) });
  }
  return { draws, short };
}
