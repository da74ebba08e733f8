import { QUANTITY_SCALE, stockRecordKey } from '../../inventory/index.ts';
import type { StockDecision } from '../../stock/index.ts';
import { MAX_ON_HAND, STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import type { RowReader } from './cells.ts';
import type { DecideContext, ImportUnit, RowReference, StockDecideContext, StockKindHooks, UnitDecision } from './kind-definition.ts';
import { DUPLICATE_STRATEGIES, MAX_FILE_BYTES, MAX_ROWS, type DuplicateStrategy, type RowError } from './types.ts';
import { claimKey } from '../../stock/index.ts';

/**
 * What every import kind that moves stock shares (docs/inventory.md "Import kinds"). Such a kind
 * is an adapter between the kind registry and the stock flows of lib/stock/domain/: it reads the
 * cells, names the stock a unit will touch, and turns the flow's decision into the claim of the
 * applied row by its natural key (what makes a re-import move nothing twice) or its row error.
 */

export const stockKindBasics = {
  entity: 'stock-entry',
  duplicateStrategies: DUPLICATE_STRATEGIES,
  maxFileBytes: MAX_FILE_BYTES,
  maxRows: MAX_ROWS,
} as const;

export function stockOf(context: DecideContext): StockDecideContext {
  if (!context.stock) throw new Error('A kind that moves stock is decided with the chunk ledger');
  return context.stock;
}

export function oneRow<Row>(unit: ImportUnit<Row>): Row {
  const [row] = unit.rows;
  if (row === undefined || unit.rows.length !== 1) throw new Error('This kind decides one row at a time');
  return row;
}

/** A row that names one item (`sku`) at one location (`locationCode`), in a lot. */
interface OnePlaceRow {
  sku: string;
  locationCode: string;
  lot: string | null;
}

export function onePlaceReferences(row: OnePlaceRow): RowReference[] {
  return [
    { entity: 'item', key: row.sku, column: 'sku', code: 'unknown-sku' },
    { entity: 'location', key: row.locationCode, column: 'locationCode', code: 'unknown-location' },
  ];
}

/** The one stock record such a row touches, read ahead. */
export const onePlaceKeys: StockKindHooks<OnePlaceRow>['keysOf'] = (unit, { resolve }) => {
  const row = oneRow(unit);
  const item = resolve('item', row.sku)?.record;
  const location = resolve('location', row.locationCode)?.record;
  return { stockRecords: item && location ? [stockRecordKey(item.id, location.id, row.lot)] : [], itemIds: [] };
};

/** A quantity cell: a plain decimal with at most `QUANTITY_SCALE` decimals, within `sign`. */
export function requiredQuantity(cells: RowReader, column: string, sign: 'positive' | 'non-negative' | 'non-zero'): number | undefined {
  const cell = cells.cell(column) ?? '';
  if (cell.trim() === '') {
    cells.error(column, cell, 'required', `${column} is required.`);
    return undefined;
  }
  const value = cells.optionalNumber(column);
  if (typeof value !== 'number') return undefined;
  const [, fraction = ''] = cell.split('.');
  const inRange = (sign === 'positive' ? value > 0 : sign === 'non-negative' ? value >= 0 : value !== 0) && Math.abs(value) <= MAX_ON_HAND;
  if (!inRange || fraction.length > QUANTITY_SCALE) {
    const rule = sign === 'positive' ? 'greater than 0' : sign === 'non-negative' ? '0 or greater' : 'different from 0';
    cells.error(column, cell, 'invalid-number', `${column} must be ${rule}, at most ${MAX_ON_HAND} in size, with at most ${QUANTITY_SCALE} decimals.`);
    return undefined;
  }
  return value;
}

/** An optional identifier cell: null when empty or when the column is absent; undefined when invalid. */
export function optionalKey(cells: RowReader, column: string, maxLength: number): string | null | undefined {
  const value = cells.optionalIdentifier(column, maxLength);
  return value === undefined && cells.cell(column) === undefined ? null : value;
}

/** An optional lot cell. */
export function optionalLot(cells: RowReader, column: string): string | null | undefined {
  return optionalKey(cells, column, STOCK_MAX_LENGTHS.lot);
}

export function failed(error: RowError): UnitDecision {
  return { action: 'failed', error };
}

/**
 * A row whose natural key was applied before moves nothing again: `skip` and `update` (the same
 * for append-only kinds) count it as skipped, `fail` gives it the row error `duplicate`.
 */
export function alreadyApplied(strategy: DuplicateStrategy, rowNumber: number, column: string, value: string, what: string): UnitDecision {
  if (strategy === 'fail') return failed({ rowNumber, column, value, code: 'duplicate', message: `${what} was already applied (duplicateStrategy fail).` });
  return { action: 'skipped', events: [] };
}

/** The claim key of a row: its kind and natural key fields, unambiguous whatever the cells hold. */
export function entryKey(kind: string, ...fields: Array<string | null>): string {
  return claimKey(kind, ...fields);
}

/** A stock flow's decision as the unit's: the claim of the row (and the build it recorded), or its row error. */
export function claimed(decision: StockDecision, key: string, jobId: string, now: string): UnitDecision {
  if (!decision.ok) return failed(decision.refusal);
  const { movementIds, build } = decision;
  if (!build) return { action: 'created', writes: [{ op: 'claim-entry', entry: { key, jobId, movementIds, appliedAt: now } }], events: [] };
  return {
    action: 'created',
    writes: [
      { op: 'claim-entry', entry: { key, jobId, movementIds, buildId: build.id, appliedAt: now } },
      { op: 'create-build', build },
    ],
    events: [],
  };
}
