import type { Item } from '../../inventory/index.ts';
import { ITEM_MAX_LENGTHS } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { LOCATION_MAX_LENGTHS } from '../../inventory/index.ts';
import { stockRecordKey } from '../../inventory/index.ts';
import { STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import { decideTransfer, type TransferRow } from '../../stock/index.ts';
import { RowReader } from './cells.ts';
import { transferClaimKey } from '../../stock/index.ts';
import type { ImportKindDefinition, UnitDecision } from './kind-definition.ts';
import { alreadyApplied, claimed, oneRow, optionalLot, requiredQuantity, stockKindBasics, stockOf } from './stock-kind.ts';
import type { RawRow } from './types.ts';

/**
 * Import kind `stock-transfers` (docs/inventory.md "stock-transfers"): each row moves a quantity
 * of one item (and lot) from one location to another, as one movement with two ledger entries
 * (decided by lib/stock/domain/transfers.ts); natural key reference + sku + lot.
 */

const KIND = 'stock-transfers';
const keyOf = (row: TransferRow) => transferClaimKey(row.reference, row.sku, row.lot);

function parseTransfer(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const reference = cells.requiredIdentifier('reference', STOCK_MAX_LENGTHS.reference);
  const sku = cells.requiredIdentifier('sku', ITEM_MAX_LENGTHS.sku);
  const fromLocationCode = cells.requiredIdentifier('fromLocationCode', LOCATION_MAX_LENGTHS.code);
  const toLocationCode = cells.requiredIdentifier('toLocationCode', LOCATION_MAX_LENGTHS.code);
  const quantity = requiredQuantity(cells, 'quantity', 'positive');
  const lot = optionalLot(cells, 'lot');
  if (fromLocationCode !== undefined && fromLocationCode === toLocationCode) {
    cells.error('toLocationCode', toLocationCode, 'invalid-value', 'toLocationCode must differ from fromLocationCode.');
  }
  return cells.result<TransferRow>(() =>
    reference === undefined ||
    sku === undefined ||
    fromLocationCode === undefined ||
    toLocationCode === undefined ||
    quantity === undefined ||
    lot === undefined
      ? undefined
      : { reference, sku, fromLocationCode, toLocationCode, quantity, quantityCell: cells.cell('quantity') ?? '', lot },
  );
}

export const stockTransfersKind: ImportKindDefinition<TransferRow, unknown> = {
  ...stockKindBasics,
  kind: KIND,
  title: 'Stock transfers',
  description:
    'Moves a quantity of an item (in a lot, for items tracked by lot) from one location to another: one movement, two stock records changed. A row that would take the source below zero fails with insufficient-stock. Re-importing a row moves nothing (natural key reference + sku + lot). Emits movement.created and stock.changed twice (source, then destination).',
  columns: [
    { name: 'reference', required: true, type: 'string', description: `Your reference of the transfer, at most ${STOCK_MAX_LENGTHS.reference} characters.` },
    { name: 'sku', required: true, type: 'string', description: 'sku of an item of the organization.' },
    { name: 'fromLocationCode', required: true, type: 'string', description: 'code of the location the stock leaves.' },
    { name: 'toLocationCode', required: true, type: 'string', description: 'code of the location the stock arrives at; not fromLocationCode.' },
    { name: 'quantity', required: true, type: 'number', description: 'Quantity moved, greater than 0, at most 6 decimals.' },
    {
      name: 'lot',
      required: false,
      type: 'string',
      description: `Lot; required for items tracked by lot, refused for others. At most ${STOCK_MAX_LENGTHS.lot} characters.`,
    },
  ],
  naturalKey: ['reference', 'sku', 'lot'],
  parseRow: parseTransfer,
  naturalKeyOf: keyOf,
  references: (row) => [
    { entity: 'item', key: row.sku, column: 'sku', code: 'unknown-sku' },
    { entity: 'location', key: row.fromLocationCode, column: 'fromLocationCode', code: 'unknown-location' },
    { entity: 'location', key: row.toLocationCode, column: 'toLocationCode', code: 'unknown-location' },
  ],
  stock: {
    keysOf: (unit, { resolve }) => {
      const row = oneRow(unit);
      const item = resolve('item', row.sku)?.record;
      const places = [row.fromLocationCode, row.toLocationCode].flatMap((code) => {
        const location = resolve('location', code)?.record;
        return item && location ? [stockRecordKey(item.id, location.id, row.lot)] : [];
      });
      return { stockRecords: places, itemIds: [] };
    },
    changesItemTotals: false,
  },
  decideUnit(unit, existing, strategy, context): UnitDecision {
    const row = oneRow(unit);
    const { rowNumber } = context;
    if (existing) return alreadyApplied(strategy, rowNumber, 'reference', row.reference, `Transfer "${row.reference}" of ${row.sku}`);
    const item = context.resolve('item', row.sku)?.record as Item;
    const from = context.resolve('location', row.fromLocationCode)?.record as Location;
    const to = context.resolve('location', row.toLocationCode)?.record as Location;
    const { ledger, jobId } = stockOf(context);
    return claimed(decideTransfer(row, { item, from, to }, ledger, { rowNumber, now: context.now }), keyOf(row), jobId, context.now);
  },
};
