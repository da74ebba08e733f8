import { BOM_LIMITS } from '../../boms/index.ts';
import type { Item } from '../../inventory/index.ts';
import { ITEM_MAX_LENGTHS } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { LOCATION_MAX_LENGTHS } from '../../inventory/index.ts';
import { stockRecordKey } from '../../inventory/index.ts';
import { checkBuild, decideBuild, shortLinesMessage, type BuildRow } from '../../builds/index.ts';
import { queuedBuild, type Build, type BuildFailure } from '../../builds/index.ts';
import type { StockEntry } from '../../stock/index.ts';
import { STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import { RowReader } from './cells.ts';
import type { BuildJobContext, BuildJobHooks, DecideContext, ImportKindDefinition, ImportUnit, UnitDecision } from './kind-definition.ts';
import type { VersionedRecord } from '../../inventory/index.ts';
import { SYSTEM_ACTOR } from './pipeline/ports.ts';
import { buildClaimKey } from '../../stock/index.ts';
import { alreadyApplied, claimed, failed, optionalKey, optionalLot, requiredQuantity, stockKindBasics, stockOf } from './stock-kind.ts';
import type { DuplicateStrategy, RawRow } from './types.ts';

/**
 * Import kind `builds` (docs/inventory.md "builds"): the rows of one buildReference are one
 * build. Outside dry runs each build is submitted as a build job (lib/builds/domain/) and run to
 * its end by the import worker, in as many transactions as it needs, like `POST /v1/builds`; the
 * row's verdict is the build's outcome. A dry run decides it in the chunk (lib/builds/domain/stock-steps.ts).
 * A build applies whole or not at all.
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
    buildReference === undefined ||
    bomCode === undefined ||
    quantity === undefined ||
    locationCode === undefined ||
    outputLot === undefined ||
    componentSku === undefined ||
    sourceLot === undefined ||
    sourceLocationCode === undefined
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
        return {
          error: failed({
            rowNumber,
            column: field,
            value: String(row[field]),
            code: 'invalid-value',
            message: `${field} differs from row ${unit.rowNumbers[0]} of the same buildReference.`,
          }),
        };
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
  return claimed(
    decideBuild(header, linesOf(unit, rowNumber), bom, lookupOf(context.resolve, itemById), ledger, { rowNumber, now: context.now }),
    buildClaimKey(header.buildReference),
    jobId,
    context.now,
  );
}

/** The unit's rows, each with its row number. */
function linesOf(unit: ImportUnit<BuildRow>, rowNumber: number) {
  return unit.rows.map((row, index) => ({ rowNumber: unit.rowNumbers[index] ?? rowNumber, row }));
}

function planBuildJob(unit: ImportUnit<BuildRow>, existing: VersionedRecord<unknown> | undefined, strategy: DuplicateStrategy, context: BuildJobContext) {
  const header = headerOf(unit);
  if ('error' in header) return { verdict: header.error };
  const { rowNumber } = context;
  const claim = existing?.record as StockEntry | undefined;
  // This import submitted it before (a redelivery): run it on to its end.
  if (claim?.jobId === context.jobId && claim.buildId) return { resume: claim.buildId };
  if (claim) return { verdict: alreadyApplied(strategy, rowNumber, 'buildReference', header.buildReference, `Build "${header.buildReference}"`) };
  const stored = context.resolve('bom', header.bomCode);
  if (!stored) throw new Error('A build is planned only once its bomCode resolved');
  const bom = stored.record;
  const lookup = lookupOf(context.resolve, context.itemById);
  const checked = checkBuild(header, linesOf(unit, rowNumber), bom, lookup, rowNumber);
  if ('error' in checked) return { verdict: claimed(checked.error, buildClaimKey(header.buildReference), context.jobId, context.now) };
  const sources = unit.rows.flatMap((row) => {
    if (row.componentSku === null) return [];
    return [{ itemId: lookup.item(row.componentSku).id, locationId: lookup.location(row.sourceLocationCode ?? header.locationCode).id, lot: row.sourceLot }];
  });
  const build = queuedBuild(
    {
      organizationId: context.organizationId,
      buildReference: header.buildReference,
      bomId: bom.id,
      revision: { id: bom.revision.id, number: bom.revision.number },
      quantity: header.quantity,
      locationId: checked.location.id,
      outputLot: header.outputLot,
      sources,
      submittedBy: SYSTEM_ACTOR,
      importJobId: context.jobId,
    },
    context.now,
  );
  return { submit: build, bomVersion: stored.version };
}

function buildVerdict(build: Build, unit: ImportUnit<BuildRow>): UnitDecision {
  if (build.status === 'succeeded') return { action: 'created', writes: [], events: [] };
  const failure: BuildFailure = build.failure ?? { code: 'processing-error', message: 'The build failed.', lines: [] };
  const message = failure.lines.length === 0 ? failure.message : shortLinesMessage(failure.lines);
  return failed({ rowNumber: unit.rowNumbers[0] ?? 0, column: 'quantity', value: String(build.quantity), code: failure.code, message });
}

const buildJob: BuildJobHooks<BuildRow> = { plan: planBuildJob, verdict: buildVerdict };

function lookupOf(resolve: DecideContext['resolve'], itemById: (id: string) => Item | undefined) {
  return {
    item: (sku: string) => resolve('item', sku)?.record as Item,
    location: (code: string) => resolve('location', code)?.record as Location,
    itemById,
  };
}

export const buildsKind: ImportKindDefinition<BuildRow, unknown> = {
  ...stockKindBasics,
  kind: KIND,
  title: 'Builds',
  description: `Records production: the rows of one buildReference are one build of quantity units of a BOM's target at locationCode (in outputLot, for items tracked by lot). It consumes every component of the BOM's current revision (line quantity × quantity ÷ outputQuantity × (1 + scrapPercent/100)) from the source lines its rows name (componentSku with sourceLot and/or sourceLocationCode), drawn in file order; a component without source lines is drawn at locationCode: without a lot, or, tracked by lot, oldest lot first (the stock record that first received stock), split across lots as needed. Each build runs as a build job, like POST /v1/builds, in as many transactions as it needs (a BOM may hold 500 lines): it first holds every component, then consumes and produces; the import goes on once it ended. A build with too little available stock fails whole with insufficient-stock, naming each short component, nothing consumed; its buildReference may then be imported again. Records build provenance (GET /v1/boms/{id}/builds). Re-importing a build moves nothing (natural key buildReference). Emits movement.created, stock.changed and low-stock.`,
  columns: [
    {
      name: 'buildReference',
      required: true,
      type: 'string',
      description: `Your reference of the build, at most ${STOCK_MAX_LENGTHS.reference} characters; rows with the same one are one build.`,
    },
    { name: 'bomCode', required: true, type: 'string', description: 'code of a draft or active BOM of the organization; its current revision is built.' },
    { name: 'quantity', required: true, type: 'number', description: "Quantity of the BOM's target produced, greater than 0, at most 6 decimals." },
    { name: 'locationCode', required: true, type: 'string', description: 'code of the location the output goes to, and components come from by default.' },
    { name: 'outputLot', required: false, type: 'string', description: 'Lot of the output; required when the target is tracked by lot, refused otherwise.' },
    { name: 'componentSku', required: false, type: 'string', description: 'A source line: sku of a component of the BOM to draw from the source below.' },
    {
      name: 'sourceLot',
      required: false,
      type: 'string',
      description: 'Lot the component is drawn from; for components tracked by lot (without it they are drawn oldest lot first), refused for others.',
    },
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
    ...(row.sourceLocationCode === null
      ? []
      : [{ entity: 'location' as const, key: row.sourceLocationCode, column: 'sourceLocationCode', code: 'unknown-location' }]),
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
      const stockRecords = [
        stockRecordKey(bom.targetItemId, location.id, first.outputLot),
        ...bom.lines.map((line) => stockRecordKey(line.itemId, location.id, null)),
      ];
      for (const row of unit.rows) {
        const component = row.componentSku === null ? undefined : resolve('item', row.componentSku)?.record;
        const source = row.sourceLocationCode === null ? location : resolve('location', row.sourceLocationCode)?.record;
        if (component && source) stockRecords.push(stockRecordKey(component.id, source.id, row.sourceLot));
      }
      return { stockRecords, itemIds, places };
    },
  },
  decideUnit: decideBuildUnit,
  buildJob,
};
