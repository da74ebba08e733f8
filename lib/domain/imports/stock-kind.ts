import { stockRecordKey } from '../inventory/stock.ts';
import type { DecideContext, ImportUnit, RowReference, StockDecideContext, StockKindHooks } from './kind-definition.ts';
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
