import type { DecideContext, ImportUnit, StockDecideContext } from './kind-definition.ts';
import { DUPLICATE_STRATEGIES, MAX_FILE_BYTES, MAX_ROWS } from './types.ts';

/**
 * What every kind that moves stock shares (docs/inventory.md "Import kinds"): it writes the claim
 * of each applied row by its natural key, and decides against the chunk's ledger.
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
