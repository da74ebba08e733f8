import { MAX_BUILD_SOURCES } from '../boms/bom.ts';
import type { Bom, BuildProvenance } from '../boms/records.ts';
import { newId } from '../ids.ts';
import type { Item } from '../inventory/item.ts';
import type { Location } from '../inventory/location.ts';
import { scaleQuantity, stockRecordKey, sumQuantities } from '../inventory/stock.ts';
import { insufficientStock, lotError, refusal, refused, type StockDecision } from './decision.ts';
import type { StockLedger, StockSide } from './ledger.ts';

/**
 * Builds (docs/inventory.md "builds"): a build consumes each component of the BOM's current
 * revision (quantity × build quantity ÷ outputQuantity × (1 + scrap)), from the build's location
 * without a lot, or from the source lines it names (componentSku, sourceLot,
 * sourceLocationCode), drawn in order. It produces the BOM's target item at the build's
 * location, and records build provenance. A build applies whole or not at all.
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

/** Stock records one build may consume from: its movements, events and provenance must fit one transaction (the arithmetic: lib/domain/boms/bom.ts). */
export { MAX_BUILD_SOURCES };

/** How a build finds what its lines name: items by sku, locations by code (all known), items by id (undefined when gone). */
export interface BuildLookup {
  item(sku: string): Item;
  location(code: string): Location;
  itemById(id: string): Item | undefined;
}

interface Source {
  item: Item;
  side: StockSide;
  rowNumber: number;
}

function invalid(rowNumber: number, column: string, value: string | null, message: string): StockDecision {
  return refused({ rowNumber, column, value, code: 'invalid-value', message });
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
  if (bom.archived || bom.status === 'obsolete') return invalid(rowNumber, 'bomCode', header.bomCode, `BOM "${bom.code}" is ${bom.archived ? 'archived' : 'obsolete'}; builds use draft or active BOMs.`);
  const target = lookup.itemById(bom.targetItemId);
  if (!target) return invalid(rowNumber, 'bomCode', bom.code, `The target item of BOM "${bom.code}" is no longer an item of the organization.`);
  const outputLotProblem = lotError(target, header.outputLot, 'outputLot', rowNumber);
  if (outputLotProblem) return refused(outputLotProblem);
  const location = lookup.location(header.locationCode);
  const sources = sourcesOf(lines, bom, location, lookup, rowNumber);
  if ('error' in sources) return sources.error;

  const consumed: BuildProvenance['consumed'] = [];
  const movementIds: string[] = [];
  for (const line of bom.lines) {
    const need = scaleQuantity(line.quantity, (header.quantity / bom.outputQuantity) * (1 + line.scrapPercent / 100));
    let left = need;
    for (const source of sources.get(line.itemId) ?? []) {
      if (left <= 0) break;
      const take = Math.min(left, ledger.onHand(source.item, source.side));
      if (take <= 0) continue;
      const moved = ledger.move({ type: 'consumption', item: source.item, quantity: take, from: source.side, reference: header.buildReference, occurredAt: at.now });
      if (!moved.ok || !moved.from) throw new Error('A source never gives more than it has');
      movementIds.push(moved.movementId);
      consumed.push({ sourceStockRecordId: moved.from.id, itemId: source.item.id, quantity: take, lot: source.side.lot });
      left = sumQuantities([left, -take]);
    }
    if (left > 0) {
      const [first] = sources.get(line.itemId) ?? [];
      return refused(insufficientStock(first?.rowNumber ?? rowNumber, 'quantity', String(header.quantity), `Component "${first?.item.sku ?? line.itemId}" at its sources`, sumQuantities([need, -left]), need));
    }
  }
  const produced = ledger.move({ type: 'production', item: target, quantity: header.quantity, to: { location, lot: header.outputLot }, reference: header.buildReference, occurredAt: at.now });
  if (!produced.ok) return refused(refusal(produced, rowNumber, 'quantity', String(header.quantity), `${target.sku} at ${header.locationCode}`, header.quantity));
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
    locationId: location.id,
    consumed,
    builtAt: at.now,
  };
  return { ok: true, movementIds, build };
}

/** The places each component is drawn from, in order; or the refusal that keeps the build from knowing them. */
function sourcesOf(lines: ReadonlyArray<{ rowNumber: number; row: BuildRow }>, bom: Bom, location: Location, lookup: BuildLookup, firstRow: number): Map<string, Source[]> | { error: StockDecision } {
  const sources = new Map<string, Source[]>();
  const seen = new Set<string>();
  for (const { rowNumber, row } of lines) {
    if (row.componentSku === null) continue;
    const item = lookup.item(row.componentSku);
    if (!bom.lines.some((line) => line.itemId === item.id)) return { error: invalid(rowNumber, 'componentSku', row.componentSku, `"${row.componentSku}" is not a component of BOM "${bom.code}".`) };
    const lotProblem = lotError(item, row.sourceLot, 'sourceLot', rowNumber);
    if (lotProblem) return { error: refused(lotProblem) };
    const sourceLocation = row.sourceLocationCode === null ? location : lookup.location(row.sourceLocationCode);
    const place = stockRecordKey(item.id, sourceLocation.id, row.sourceLot);
    if (seen.has(place)) return { error: invalid(rowNumber, 'sourceLot', row.sourceLot, `The same source of "${row.componentSku}" is named twice.`) };
    seen.add(place);
    sources.set(item.id, [...(sources.get(item.id) ?? []), { item, side: { location: sourceLocation, lot: row.sourceLot }, rowNumber }]);
  }
  for (const line of bom.lines) {
    if (sources.has(line.itemId)) continue;
    const item = lookup.itemById(line.itemId);
    if (!item) return { error: invalid(firstRow, 'bomCode', bom.code, `A component of BOM "${bom.code}" is no longer an item of the organization.`) };
    if (item.trackingMode === 'lot') {
      return { error: refused({ rowNumber: firstRow, column: 'componentSku', value: item.sku, code: 'lot-required', message: `Component "${item.sku}" is tracked by lot: name its source lot on a row with componentSku and sourceLot.` }) };
    }
    sources.set(line.itemId, [{ item, side: { location, lot: null }, rowNumber: firstRow }]);
  }
  const count = [...sources.values()].reduce((sum, list) => sum + list.length, 0);
  if (count > MAX_BUILD_SOURCES) return { error: invalid(firstRow, 'buildReference', null, `A build consumes from at most ${MAX_BUILD_SOURCES} stock records; this one names ${count}.`) };
  return sources;
}
