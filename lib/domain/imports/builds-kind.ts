import { BOM_LIMITS } from '../boms/bom.ts';
import type { Bom, BuildProvenance } from '../boms/records.ts';
import { newId } from '../ids.ts';
import type { Item } from '../inventory/item.ts';
import { ITEM_MAX_LENGTHS } from '../inventory/item.ts';
import type { Location } from '../inventory/location.ts';
import { LOCATION_MAX_LENGTHS } from '../inventory/location.ts';
import { scaleQuantity, stockRecordKey, sumQuantities } from '../inventory/stock.ts';
import type { StockSide } from '../stock/ledger.ts';
import { RowReader } from './cells.ts';
import type { DecideContext, ImportKindDefinition, ImportUnit, UnitDecision } from './kind-definition.ts';
import { stockKindBasics, stockOf } from './stock-kind.ts';
import { alreadyApplied, entryKey, failed, insufficientStock, lotError, optionalKey, optionalLot, refusal, requiredQuantity, STOCK_MAX_LENGTHS } from './stock-rows.ts';
import type { RawRow, RowError } from './types.ts';

/**
 * Import kind `builds` (docs/inventory.md "builds"): the rows of one buildReference are one
 * build. It consumes each component of the BOM's current revision (quantity × build quantity ÷
 * outputQuantity × (1 + scrap)), from the build's location without a lot, or from the source
 * lines the rows name (componentSku, sourceLot, sourceLocationCode), drawn in file order. It
 * produces the BOM's target item at the build's location, and records build provenance. A build
 * applies whole or not at all.
 */

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

const KIND = 'builds';
/** Stock records one build may consume from: its movements, events and provenance must fit one transaction. */
export const MAX_BUILD_SOURCES = 12;

function parseBuild(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const buildReference = cells.requiredIdentifier('buildReference', STOCK_MAX_LENGTHS.reference);
  const bomCode = cells.requiredIdentifier('bomCode', BOM_LIMITS.code);
  const quantity = requiredQuantity(cells, 'quantity', 'positive');
  const locationCode = cells.requiredIdentifier('locationCode', LOCATION_MAX_LENGTHS.code);
  const outputLot = optionalLot(cells, 'outputLot');
  const componentSku = optionalKey(cells, 'componentSku', ITEM_MAX_LENGTHS.sku);
  const sourceLot = optionalLot(cells, 'sourceLot');
  const sourceLocationCode = optionalKey(cells, 'sourceLocationCode', LOCATION_MAX_LENGTHS.code);
  if (!componentSku && (sourceLot || sourceLocationCode)) {
    cells.error('componentSku', componentSku ?? '', 'required', 'componentSku is required on a row that names a sourceLot or sourceLocationCode.');
  }
  return cells.result<BuildRow>(() =>
    buildReference === undefined || bomCode === undefined || quantity === undefined || locationCode === undefined || outputLot === undefined || componentSku === undefined || sourceLot === undefined || sourceLocationCode === undefined
      ? undefined
      : { buildReference, bomCode, quantity, locationCode, outputLot, componentSku, sourceLot, sourceLocationCode },
  );
}

function invalid(rowNumber: number, column: string, value: string | null, message: string): UnitDecision {
  return failed({ rowNumber, column, value, code: 'invalid-value', message });
}

interface Source {
  item: Item;
  side: StockSide;
  rowNumber: number;
}

/** The places each component is drawn from, in order; or the row error that keeps the build from knowing them. */
function sourcesOf(unit: ImportUnit<BuildRow>, bom: Bom, location: Location, context: DecideContext): Map<string, Source[]> | { error: UnitDecision } {
  const { item: itemById } = stockOf(context);
  const sources = new Map<string, Source[]>();
  const seen = new Set<string>();
  for (const [index, row] of unit.rows.entries()) {
    const rowNumber = unit.rowNumbers[index] ?? context.rowNumber;
    if (row.componentSku === null) continue;
    const item = context.resolve('item', row.componentSku)?.record as Item;
    if (!bom.lines.some((line) => line.itemId === item.id)) return { error: invalid(rowNumber, 'componentSku', row.componentSku, `"${row.componentSku}" is not a component of BOM "${bom.code}".`) };
    const lotProblem = lotError(item, row.sourceLot, 'sourceLot', rowNumber);
    if (lotProblem) return { error: failed(lotProblem) };
    const sourceLocation = row.sourceLocationCode === null ? location : (context.resolve('location', row.sourceLocationCode)?.record as Location);
    const place = stockRecordKey(item.id, sourceLocation.id, row.sourceLot);
    if (seen.has(place)) return { error: invalid(rowNumber, 'sourceLot', row.sourceLot, `The same source of "${row.componentSku}" is named twice.`) };
    seen.add(place);
    sources.set(item.id, [...(sources.get(item.id) ?? []), { item, side: { location: sourceLocation, lot: row.sourceLot }, rowNumber }]);
  }
  for (const line of bom.lines) {
    if (sources.has(line.itemId)) continue;
    const item = itemById(line.itemId);
    if (!item) return { error: invalid(context.rowNumber, 'bomCode', bom.code, `A component of BOM "${bom.code}" is no longer an item of the organization.`) };
    if (item.trackingMode === 'lot') {
      return { error: failed({ rowNumber: context.rowNumber, column: 'componentSku', value: item.sku, code: 'lot-required', message: `Component "${item.sku}" is tracked by lot: name its source lot on a row with componentSku and sourceLot.` }) };
    }
    sources.set(line.itemId, [{ item, side: { location, lot: null }, rowNumber: context.rowNumber }]);
  }
  const count = [...sources.values()].reduce((sum, list) => sum + list.length, 0);
  if (count > MAX_BUILD_SOURCES) return { error: invalid(context.rowNumber, 'buildReference', null, `A build consumes from at most ${MAX_BUILD_SOURCES} stock records; this one names ${count}.`) };
  return sources;
}

/** The first row's header fields, or the row error of a row that disagrees with them. */
function headerOf(unit: ImportUnit<BuildRow>): BuildRow | { error: UnitDecision } {
  const [first] = unit.rows;
  if (!first) throw new Error('A builds unit has at least one row');
  for (const [index, row] of unit.rows.entries()) {
    for (const field of ['bomCode', 'quantity', 'locationCode', 'outputLot'] as const) {
      if (row[field] !== first[field]) {
        return { error: invalid(unit.rowNumbers[index] ?? 0, field, String(row[field]), `${field} differs from row ${unit.rowNumbers[0]} of the same buildReference.`) };
      }
    }
  }
  return first;
}

function decideBuild(unit: ImportUnit<BuildRow>, existing: unknown, strategy: Parameters<ImportKindDefinition['decideUnit']>[2], context: DecideContext): UnitDecision {
  const header = headerOf(unit);
  if ('error' in header) return header.error;
  const { rowNumber } = context;
  if (existing) return alreadyApplied(strategy, rowNumber, 'buildReference', header.buildReference, `Build "${header.buildReference}"`);
  const bom = context.resolve('bom', header.bomCode)?.record as Bom;
  if (bom.archived || bom.status === 'obsolete') return invalid(rowNumber, 'bomCode', header.bomCode, `BOM "${bom.code}" is ${bom.archived ? 'archived' : 'obsolete'}; builds use draft or active BOMs.`);
  const { ledger, jobId, item: itemById } = stockOf(context);
  const target = itemById(bom.targetItemId);
  if (!target) return invalid(rowNumber, 'bomCode', bom.code, `The target item of BOM "${bom.code}" is no longer an item of the organization.`);
  const outputLotProblem = lotError(target, header.outputLot, 'outputLot', rowNumber);
  if (outputLotProblem) return failed(outputLotProblem);
  const location = context.resolve('location', header.locationCode)?.record as Location;
  const sources = sourcesOf(unit, bom, location, context);
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
      const moved = ledger.move({ type: 'consumption', item: source.item, quantity: take, from: source.side, reference: header.buildReference, occurredAt: context.now });
      if (!moved.ok || !moved.from) throw new Error('A source never gives more than it has');
      movementIds.push(moved.movementId);
      consumed.push({ sourceStockRecordId: moved.from.id, itemId: source.item.id, quantity: take, lot: source.side.lot });
      left = sumQuantities([left, -take]);
    }
    if (left > 0) {
      const [first] = sources.get(line.itemId) ?? [];
      const error: RowError = insufficientStock(first?.rowNumber ?? rowNumber, 'quantity', String(header.quantity), `Component "${first?.item.sku ?? line.itemId}" at its sources`, sumQuantities([need, -left]), need);
      return failed(error);
    }
  }
  const produced = ledger.move({ type: 'production', item: target, quantity: header.quantity, to: { location, lot: header.outputLot }, reference: header.buildReference, occurredAt: context.now });
  if (!produced.ok) return failed(refusal(produced, rowNumber, 'quantity', String(header.quantity), `${target.sku} at ${header.locationCode}`, header.quantity));
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
    builtAt: context.now,
  };
  return {
    action: 'created',
    writes: [
      { op: 'claim-entry', entry: { key: entryKey(KIND, header.buildReference), jobId, movementIds, buildId: build.id, appliedAt: context.now } },
      { op: 'create-build', build },
    ],
    events: [],
  };
}

export const buildsKind: ImportKindDefinition<BuildRow, unknown> = {
  ...stockKindBasics,
  kind: KIND,
  title: 'Builds',
  description: `Records production: the rows of one buildReference are one build of quantity units of a BOM's target at locationCode (in outputLot, for items tracked by lot). It consumes every component of the BOM's current revision (line quantity × quantity ÷ outputQuantity × (1 + scrapPercent/100)) from locationCode without a lot, or from the source lines its rows name (componentSku with sourceLot and/or sourceLocationCode), drawn in file order; components tracked by lot need source lines. At most ${MAX_BUILD_SOURCES} sources per build. A build with too little stock fails whole with insufficient-stock. Records build provenance (GET /v1/boms/{id}/builds). Re-importing a build moves nothing (natural key buildReference). Emits movement.created, stock.changed and low-stock.`,
  columns: [
    { name: 'buildReference', required: true, type: 'string', description: `Your reference of the build, at most ${STOCK_MAX_LENGTHS.reference} characters; rows with the same one are one build.` },
    { name: 'bomCode', required: true, type: 'string', description: 'code of a draft or active BOM of the organization; its current revision is built.' },
    { name: 'quantity', required: true, type: 'number', description: "Quantity of the BOM's target produced, greater than 0, at most 6 decimals." },
    { name: 'locationCode', required: true, type: 'string', description: 'code of the location the output goes to, and components come from by default.' },
    { name: 'outputLot', required: false, type: 'string', description: 'Lot of the output; required when the target is tracked by lot, refused otherwise.' },
    { name: 'componentSku', required: false, type: 'string', description: 'A source line: sku of a component of the BOM to draw from the source below.' },
    { name: 'sourceLot', required: false, type: 'string', description: 'Lot the component is drawn from; required for components tracked by lot.' },
    { name: 'sourceLocationCode', required: false, type: 'string', description: 'Location the component is drawn from. Default: locationCode.' },
  ],
  naturalKey: ['buildReference'],
  parseRow: parseBuild,
  naturalKeyOf: (row) => entryKey(KIND, row.buildReference),
  groupKeyOf: (raw) => (raw.buildreference ?? '').trim(),
  references: (row) => [
    { entity: 'bom', key: row.bomCode, column: 'bomCode', code: 'unknown-bom' },
    { entity: 'location', key: row.locationCode, column: 'locationCode', code: 'unknown-location' },
    ...(row.componentSku === null ? [] : [{ entity: 'item' as const, key: row.componentSku, column: 'componentSku', code: 'unknown-sku' }]),
    ...(row.sourceLocationCode === null ? [] : [{ entity: 'location' as const, key: row.sourceLocationCode, column: 'sourceLocationCode', code: 'unknown-location' }]),
  ],
  stock: {
    keysOf: (unit, { resolve }) => {
      const [first] = unit.rows;
      const bom = first && resolve('bom', first.bomCode)?.record;
      const location = first && resolve('location', first.locationCode)?.record;
      if (!first || !bom || !location) return { stockRecords: [], itemIds: [] };
      const itemIds = [bom.targetItemId, ...bom.lines.map((line) => line.itemId)];
      const stockRecords = [stockRecordKey(bom.targetItemId, location.id, first.outputLot), ...bom.lines.map((line) => stockRecordKey(line.itemId, location.id, null))];
      for (const row of unit.rows) {
        const component = row.componentSku === null ? undefined : resolve('item', row.componentSku)?.record;
        const source = row.sourceLocationCode === null ? location : resolve('location', row.sourceLocationCode)?.record;
        if (component && source) stockRecords.push(stockRecordKey(component.id, source.id, row.sourceLot));
      }
      return { stockRecords, itemIds };
    },
  },
  decideUnit: decideBuild,
};
