import { lineNeed } from '../../boms/index.ts';
import type { Bom, BuildProvenance } from '../../boms/index.ts';
import { newId } from '../../platform/core/ids.ts';
import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { stockRecordKey, sumQuantities } from '../../inventory/index.ts';
import { lotError, refusal, refused, type StockDecision } from '../../stock/index.ts';
import type { StockLedger, StockSide } from '../../stock/index.ts';

/**
 * Builds (docs/inventory.md "builds"): a build consumes each component of the BOM's current
 * revision (quantity × build quantity ÷ outputQuantity × (1 + scrap)) from the source lines it
 * names (componentSku, sourceLot, sourceLocationCode), drawn in order; a component without them
 * is drawn at the build's location: without a lot, or, tracked by lot, oldest lot first (the
 * stock record that first received stock), split across lots as needed. It produces the BOM's
 * target item at the build's location, and records build provenance naming every stock record
 * (lot) drawn. A build applies whole or not at all. An import runs each build as a build job
 * (lib/builds/domain/); `decideBuild` is the same build decided in one chunk, for dry runs, whose
 * writes go to the overlay rather than a transaction.
 */

/** One line of a build: its header fields (the same on every line) and, optionally, a source. */
export interface BuildRow {
  buildReference: string;
  bomCode: string;
  quantity: number;
  locationCode: string;
  outputLot: string | null;
  componentSku: string | null;
  sourceLot: string | null;
  sourceLocationCode: string | null;
}

/** How a build finds what its lines name: items by sku, locations by code (all known), items by id (undefined when gone). */
export interface BuildLookup {
  item(sku: string): Item;
  location(code: string): Location;
  itemById(id: string): Item | undefined;
}

export interface Source {
  item: Item;
  side: StockSide;
  rowNumber: number;
}

/** Where a component is drawn from: the places named, in order, or its lots at the build's location, oldest first. */
export type Sources = Source[] | { item: Item; lotsAt: Location };

function invalid(rowNumber: number, column: string, value: string | null, message: string): StockDecision {
  return refused({ rowNumber, column, value, code: 'invalid-value', message });
}

/** What a build draws from and makes, once its header and source lines are found usable. */
export interface CheckedBuild {
  target: Item;
  location: Location;
  /** Per component (item id): the places named, in file order, or its lots at the build's location. */
  sources: Map<string, Sources>;
}

/**
 * The checks a build passes before any stock is looked at: its BOM buildable, its target still an
 * item, its output lot as the target's tracking asks, and its source lines usable (components of
 * the BOM, lots as their tracking asks, each place once). Shared by the in-chunk decision (dry runs)
 * and the build job an import submits (lib/imports/domain/builds-kind.ts).
 */
export function checkBuild(
  header: BuildRow,
  lines: ReadonlyArray<{ rowNumber: number; row: BuildRow }>,
  bom: Bom,
  lookup: BuildLookup,
  rowNumber: number,
): CheckedBuild | { error: StockDecision } {
  if (bom.archived || bom.status === 'obsolete')
    return {
      error: invalid(rowNumber, 'bomCode', header.bomCode, `BOM "${bom.code}" is ${bom.archived ? 'archived' : 'obsolete'}; builds use draft or active BOMs.`),
    };
  const target = lookup.itemById(bom.targetItemId);
  if (!target) return { error: invalid(rowNumber, 'bomCode', bom.code, `The target item of BOM "${bom.code}" is no longer an item of the organization.`) };
  const outputLotProblem = lotError(target, header.outputLot, 'outputLot', rowNumber);
  if (outputLotProblem) return { error: refused(outputLotProblem) };
  const location = lookup.location(header.locationCode);
  const sources = sourcesOf(lines, bom, location, lookup, rowNumber);
  if ('error' in sources) return sources;
  return { target, location, sources };
}

/**
 * Decides the build `header` describes, drawing from the source `lines` (each with its row
 * number), against the chunk's ledger. `at.rowNumber` is the build's first row.
 */
export function decideBuild(
  header: BuildRow,
  lines: ReadonlyArray<{ rowNumber: number; row: BuildRow }>,
  bom: Bom,
  lookup: BuildLookup,
  ledger: StockLedger,
  at: { rowNumber: number; now: string },
): StockDecision {
  const { rowNumber } = at;
  const checked = checkBuild(header, lines, bom, lookup, rowNumber);
  if ('error' in checked) return checked.error;
  const { target, location, sources } = checked;

  const consumed: BuildProvenance['consumed'] = [];
  const movementIds: string[] = [];
  const short: ShortLine[] = [];
  for (const line of bom.lines) {
    const need = lineNeed(line, bom, header.quantity);
    let left = need;
    const planned = sources.get(line.itemId) ?? [];
    const drawn = Array.isArray(planned) ? planned : lotSources(planned.item, planned.lotsAt, ledger, rowNumber);
    for (const source of drawn) {
      if (left <= 0) break;
      const take = Math.min(left, ledger.available(source.item, source.side));
      if (take <= 0) continue;
      const moved = ledger.move({
        type: 'consumption',
        item: source.item,
        quantity: take,
        from: source.side,
        reference: header.buildReference,
        occurredAt: at.now,
      });
      if (!moved.ok || !moved.from) throw new Error('A source never gives more than it has');
      movementIds.push(moved.movementId);
      consumed.push({ sourceStockRecordId: moved.from.id, itemId: source.item.id, quantity: take, lot: source.side.lot });
      left = sumQuantities([left, -take]);
    }
    if (left > 0)
      short.push({
        sku: (Array.isArray(planned) ? planned[0]?.item.sku : planned.item.sku) ?? line.itemId,
        needed: need,
        available: sumQuantities([need, -left]),
      });
  }
  if (short.length > 0)
    return refused({ rowNumber, column: 'quantity', value: String(header.quantity), code: 'insufficient-stock', message: shortLinesMessage(short) });
  const produced = ledger.move({
    type: 'production',
    item: target,
    quantity: header.quantity,
    to: { location, lot: header.outputLot },
    reference: header.buildReference,
    occurredAt: at.now,
  });
  if (!produced.ok)
    return refused(refusal(produced, rowNumber, 'quantity', String(header.quantity), `${target.sku} at ${header.locationCode}`, header.quantity));
  if (!produced.to) throw new Error('Production adds stock at its location');
  movementIds.push(produced.movementId);
  const build: BuildProvenance = {
    id: newId('bld'),
    bomId: bom.id,
    revision: { id: bom.revision.id, number: bom.revision.number },
    reference: header.buildReference,
    quantity: header.quantity,
    outputItemId: target.id,
    outputStockRecordId: produced.to.id,
    outputLot: header.outputLot,
    locationId: location.id,
    consumed,
    builtAt: at.now,
  };
  return { ok: true, movementIds, build };
}

/** A component a build lacks available stock of. */
export interface ShortLine {
  sku: string;
  needed: number;
  available: number;
}

/** Short lines named in one row error, at most this many; the others are counted. */
const SHORT_LINES_NAMED = 10;

/** The message of a build's `insufficient-stock` row error: each short component (the first 10), the same in a dry run and a real run. */
export function shortLinesMessage(lines: readonly ShortLine[]): string {
  const named = lines
    .slice(0, SHORT_LINES_NAMED)
    .map(
      (line) =>
        `Component "${line.sku}" has ${line.available} available (on hand less what reservations and other builds hold); ${line.needed} is more than that.`,
    );
  const more = lines.length - named.length;
  return [...named, ...(more > 0 ? [`${more} more component lines are short.`] : []), 'Nothing was consumed.'].join(' ');
}

/** The item's lots at `location` that hold stock, oldest first, as sources. */
function lotSources(item: Item, location: Location, ledger: StockLedger, rowNumber: number): Source[] {
  return ledger.lotsWithStockAt(item, location).map((lot) => ({ item, side: { location, lot }, rowNumber }));
}

/** The places each component is drawn from, in order; or the refusal that keeps the build from knowing them. */
function sourcesOf(
  lines: ReadonlyArray<{ rowNumber: number; row: BuildRow }>,
  bom: Bom,
  location: Location,
  lookup: BuildLookup,
  firstRow: number,
): Map<string, Sources> | { error: StockDecision } {
  const sources = new Map<string, Source[]>();
  const seen = new Set<string>();
  for (const { rowNumber, row } of lines) {
    if (row.componentSku === null) continue;
    const item = lookup.item(row.componentSku);
    if (!bom.lines.some((line) => line.itemId === item.id))
      return { error: invalid(rowNumber, 'componentSku', row.componentSku, `"${row.componentSku}" is not a component of BOM "${bom.code}".`) };
    const lotProblem = lotError(item, row.sourceLot, 'sourceLot', rowNumber);
    if (lotProblem) return { error: refused(lotProblem) };
    const sourceLocation = row.sourceLocationCode === null ? location : lookup.location(row.sourceLocationCode);
    const place = stockRecordKey(item.id, sourceLocation.id, row.sourceLot);
    if (seen.has(place)) return { error: invalid(rowNumber, 'sourceLot', row.sourceLot, `The same source of "${row.componentSku}" is named twice.`) };
    seen.add(place);
    sources.set(item.id, [...(sources.get(item.id) ?? []), { item, side: { location: sourceLocation, lot: row.sourceLot }, rowNumber }]);
  }
  const all = new Map<string, Sources>(sources);
  for (const line of bom.lines) {
    if (all.has(line.itemId)) continue;
    const item = lookup.itemById(line.itemId);
    if (!item) return { error: invalid(firstRow, 'bomCode', bom.code, `A component of BOM "${bom.code}" is no longer an item of the organization.`) };
    all.set(line.itemId, item.trackingMode === 'lot' ? { item, lotsAt: location } : [{ item, side: { location, lot: null }, rowNumber: firstRow }]);
  }
  return all;
}
