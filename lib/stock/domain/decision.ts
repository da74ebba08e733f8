import type { BuildProvenance } from '../../boms/index.ts';
import { ARCHIVED_CODES, archivedMessage, type Item } from '../../inventory/index.ts';
import type { MoveResult } from './ledger.ts';

/**
 * What a stock flow decides for one line of its input (an adjustment, a transfer, a count or
 * receipt line, a build; docs/inventory.md "Import kinds"): the movements it made on the chunk's
 * ledger, or why it refused. The import kinds in lib/imports/domain/ turn a decision into the
 * row's claim or its row error.
 */

/**
 * Why a line was refused: the row and field (`column`, as the input names it) it objects to, a
 * code and a message. Shaped as an import row error (docs/imports.md "Row errors"), which an
 * import reports it as.
 */
export interface StockRefusal {
  rowNumber: number;
  column: string;
  value: string | null;
  code: string;
  message: string;
}

export type StockDecision = { ok: true; movementIds: string[]; build?: BuildProvenance } | { ok: false; refusal: StockRefusal };

export function refused(refusal: StockRefusal): StockDecision {
  return { ok: false, refusal };
}

/** Lots are required for items tracked by lot and refused for the others. */
export function lotError(item: Item, lot: string | null, column: string, rowNumber: number): StockRefusal | undefined {
  if (item.trackingMode === 'lot' && lot === null) {
    return { rowNumber, column, value: '', code: 'lot-required', message: `Item "${item.sku}" is tracked by lot: ${column} is required.` };
  }
  if (item.trackingMode !== 'lot' && lot !== null) {
    return { rowNumber, column, value: lot, code: 'lot-not-allowed', message: `Item "${item.sku}" is not tracked by lot: leave ${column} empty.` };
  }
  return undefined;
}

/** The refusal of a movement the ledger refused: not enough stock, or more than a record may hold. */
export function refusal(
  moved: Exclude<MoveResult, { ok: true }>,
  rowNumber: number,
  column: string,
  value: string,
  what: string,
  needed: number,
): StockRefusal {
  if (moved.reason === 'insufficient-stock') return insufficientStock(rowNumber, column, value, what, moved.available, needed);
  if (moved.reason === 'archived') return archivedRefusal(rowNumber, moved.what, moved.name);
  return {
    rowNumber,
    column,
    value,
    code: 'invalid-number',
    message: `${what} would hold more than ${moved.limit}, the most a stock record or an item may hold.`,
  };
}

/** A row (or line) that would bring stock into an archived item or location: the row error `item-archived` / `location-archived`. */
export function archivedRefusal(rowNumber: number, what: 'item' | 'location', name: string): StockRefusal {
  return { rowNumber, column: what === 'item' ? 'sku' : 'locationCode', value: name, code: ARCHIVED_CODES[what], message: archivedMessage(what, name) };
}

export function insufficientStock(rowNumber: number, column: string, value: string, what: string, available: number, needed: number): StockRefusal {
  return {
    rowNumber,
    column,
    value,
    code: 'insufficient-stock',
    message: `${what} has ${available} available (on hand less what reservations hold); ${needed} is more than that.`,
  };
}
