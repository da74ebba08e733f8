import type { Item } from '../inventory/item.ts';
import { QUANTITY_SCALE } from '../inventory/stock.ts';
import type { MoveResult } from '../stock/ledger.ts';
import { MAX_ON_HAND } from '../stock/records.ts';
import type { RowReader } from './cells.ts';
import type { UnitDecision } from './kind-definition.ts';
import type { DuplicateStrategy, RowError } from './types.ts';

/**
 * Cell and row rules shared by the kinds that move stock (docs/inventory.md "Import kinds"):
 * quantities, lots, references and what a row already applied does.
 */

/** Maximum lengths in characters of the business references and lots. */
export const STOCK_MAX_LENGTHS = { reference: 64, lot: 64 } as const;

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

/** Lots are required for items tracked by lot and refused for the others. */
export function lotError(item: Item, lot: string | null, column: string, rowNumber: number): RowError | undefined {
  if (item.trackingMode === 'lot' && lot === null) {
    return { rowNumber, column, value: '', code: 'lot-required', message: `Item "${item.sku}" is tracked by lot: ${column} is required.` };
  }
  if (item.trackingMode !== 'lot' && lot !== null) {
    return { rowNumber, column, value: lot, code: 'lot-not-allowed', message: `Item "${item.sku}" is not tracked by lot: leave ${column} empty.` };
  }
  return undefined;
}

/** The row error of a movement the ledger refused: not enough stock, or more than a record may hold. */
export function refusal(moved: Exclude<MoveResult, { ok: true }>, rowNumber: number, column: string, value: string, what: string, needed: number): RowError {
  if (moved.reason === 'insufficient-stock') return insufficientStock(rowNumber, column, value, what, moved.available, needed);
  return { rowNumber, column, value, code: 'invalid-number', message: `${what} would hold more than ${moved.limit}, the most a stock record or an item may hold.` };
}

export function insufficientStock(rowNumber: number, column: string, value: string, what: string, available: number, needed: number): RowError {
  return {
    rowNumber,
    column,
    value,
    code: 'insufficient-stock',
    message: `${what} has ${available} on hand; ${needed} would take it below zero.`,
  };
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
  return JSON.stringify([kind, ...fields]);
}
