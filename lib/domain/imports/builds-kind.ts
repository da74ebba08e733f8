import { BOM_LIMITS } from '../boms/bom.ts';
import type { Item } from '../inventory/item.ts';
import { ITEM_MAX_LENGTHS } from '../inventory/item.ts';
import type { Location } from '../inventory/location.ts';
import { LOCATION_MAX_LENGTHS } from '../inventory/location.ts';
import { stockRecordKey } from '../inventory/stock.ts';
import { decideBuild, MAX_BUILD_SOURCES, type BuildRow } from '../stock/builds.ts';
import { STOCK_MAX_LENGTHS } from '../stock/records.ts';
import { RowReader } from './cells.ts';
import type { DecideContext, ImportKindDefinition, ImportUnit, UnitDecision } from './kind-definition.ts';
import { buildClaimKey } from '../stock/claims.ts';
import { alreadyApplied, claimed, failed, optionalKey, optionalLot, requiredQuantity, stockKindBasics, stockOf } from './stock-kind.ts';
import type { DuplicateStrategy, RawRow } from './types.ts';

/**
 * Import kind `builds` (docs/inventory.md "builds"): the rows of one buildReference are one
 * build, decided by lib/domain/stock/builds.ts: it consumes the BOM's components from the source
 * lines the rows name or at the build's location (a component tracked by lot: its lots there,
 * oldest first), produces the BOM's target and records build provenance. A build applies whole
 * or not at all.
 */

const KIND = 'builds';

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

/** The first row's header fields, or the row error of a row that disagrees with them. */
function headerOf(unit: ImportUnit<BuildRow>): BuildRow | { error: UnitDecision } {
  const [first] = unit.rows;
  if (!first) throw new Error('A builds unit has at least one row');
  for (const [index, row] of unit.rows.entries()) {
    for (const field of ['bomCode', 'quantity', 'locationCode', 'outputLot'] as const) {
      if (row[field] !== first[field]) {
        const rowNumber = unit.rowNumbers[index] ?? 0;
        return { error: failed({ rowNumber, column: field, value: String(row[field]), code: 'invalid-value', message: `${field} differs from row ${unit.rowNumbers[0]} of the same buildReference.` }) };
      }
    }
  }
  return first;
}

function decideBuildUnit(unit: ImportUnit<BuildRow>, existing: unknown, strategy: DuplicateStrategy, context: DecideContext): UnitDecision {
  const header = headerOf(unit);
  if ('error' in header) return header.error;
  const { rowNumber } = context;
  if (existing) return alreadyApplied(strategy, rowNumber, 'buildReference', header.buildReference, `Build "${header.buildReference}"`);
  const stored = context.resolve('bom', header.bomCode);
  if (!stored) throw new Error('A build is decided only once its bomCode resolved');
  const bom = stored.record;
  const { ledger, jobId, item: itemById } = stockOf(context);
  // The build (or its refusal) rests on this revision: the commit checks the BOM still at it.
  ledger.readBom(bom.id, stored.version);
  const lines = unit.rows.map((row, index) => ({ rowNumber: unit.rowNumbers[index] ?? rowNumber, row }));
  const lookup = {
    item: (sku: string) => context.resolve('item', sku)?.record as Item,
    location: (code: string) => context.resolve('location', code)?.record as Location,
    itemById,
  };
  return claimed(decideBuild(header, lines, bom, lookup, ledger, { rowNumber, now: context.now }), buildClaimKey(header.buildReference), jobId, context.now);
}

export const buildsKind: ImportKindDefinition<BuildRow, unknown> = {
  ...stockKindBasics,
  kind: KIND,
  title: 'Builds',
  description: `Records production: the rows of one buildReference are one build of quantity units of a BOM's target at locationCode (in outputLot, for items tracked by lot). It consumes every component of the BOM's current revision (line quantity × quantity ÷ outputQuantity × (1 + scrapPercent/100)) from the source lines its rows name (componentSku with sourceLot and/or sourceLocationCode), drawn in file order; a component without source lines is drawn at locationCode: without a lot, or, tracked by lot, oldest lot first (the stock record that first received stock), split across lots as needed. An imported build is decided and applied in one transaction, so it draws from at most ${MAX_BUILD_SOURCES} stock records (lots); a larger build (a BOM may hold 500 lines) is refused with a row error: submit it over POST /v1/builds, which runs it as a job of as many transactions as it needs. A build with too little stock fails whole with insufficient-stock. Records build provenance (GET /v1/boms/{id}/builds). Re-importing a build moves nothing (natural key buildReference). Emits movement.created, stock.changed and low-stock.`,
  columns: [
    { name: 'buildReference', required: true, type: 'string', description: `Your reference of the build, at most ${STOCK_MAX_LENGTHS.reference} characters; rows with the same one are one build.` },
    { name: 'bomCode', required: true, type: 'string', description: 'code of a draft or active BOM of the organization; its current revision is built.' },
    { name: 'quantity', required: true, type: 'number', description: "Quantity of the BOM's target produced, greater than 0, at most 6 decimals." },
    { name: 'locationCode', required: true, type: 'string', description: 'code of the location the output goes to, and components come from by default.' },
    { name: 'outputLot', required: false, type: 'string', description: 'Lot of the output; required when the target is tracked by lot, refused otherwise.' },
    { name: 'componentSku', required: false, type: 'string', description: 'A source line: sku of a component of the BOM to draw from the source below.' },
    { name: 'sourceLot', required: false, type: 'string', description: 'Lot the component is drawn from; for components tracked by lot (without it they are drawn oldest lot first), refused for others.' },
    { name: 'sourceLocationCode', required: false, type: 'string', description: 'Location the component is drawn from. Default: locationCode.' },
  ],
  naturalKey: ['buildReference'],
  parseRow: parseBuild,
  naturalKeyOf: (row) => buildClaimKey(row.buildReference),
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
      // Components without source lines: the lots at the location of those tracked by lot (the state reads only those).
      const named = new Set(unit.rows.flatMap((row) => (row.componentSku === null ? [] : [resolve('item', row.componentSku)?.record.id])));
      const places = bom.lines.filter((line) => !named.has(line.itemId)).map((line) => ({ itemId: line.itemId, locationId: location.id }));
      const itemIds = [bom.targetItemId, ...bom.lines.map((line) => line.itemId)];
      const stockRecords = [stockRecordKey(bom.targetItemId, location.id, first.outputLot), ...bom.lines.map((line) => stockRecordKey(line.itemId, location.id, null))];
      for (const row of unit.rows) {
        const component = row.componentSku === null ? undefined : resolve('item', row.componentSku)?.record;
        const source = row.sourceLocationCode === null ? location : resolve('location', row.sourceLocationCode)?.record;
        if (component && source) stockRecords.push(stockRecordKey(component.id, source.id, row.sourceLot));
      }
      return { stockRecords, itemIds, places };
    },
  },
  decideUnit: decideBuildUnit,
};
