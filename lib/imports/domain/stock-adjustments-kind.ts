import type { Item } from '../../inventory/index.ts';
import { ITEM_MAX_LENGTHS } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { LOCATION_MAX_LENGTHS } from '../../inventory/index.ts';
import { decideAdjustment, type AdjustmentRow } from '../../stock/index.ts';
import { adjustmentClaimKey } from '../../stock/index.ts';
import { STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import { RowReader } from './cells.ts';
import type { ImportKindDefinition, UnitDecision } from './kind-definition.ts';
import { alreadyApplied, claimed, onePlaceKeys, onePlaceReferences, oneRow, optionalLot, requiredQuantity, stockKindBasics, stockOf } from './stock-kind.ts';
import type { RawRow } from './types.ts';

/**
 * Import kind `stock-adjustments` (docs/inventory.md "stock-adjustments"): each row adds to or
 * takes from one stock record (decided by lib/stock/domain/adjustments.ts); natural key
 * reference + sku + locationCode + lot.
 */

const KIND = 'stock-adjustments';
const MAX_REASON_LENGTH = 200;
const keyOf = (row: AdjustmentRow) => adjustmentClaimKey(row.reference, row.sku, row.locationCode, row.lot);

function parseAdjustment(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const reference = cells.requiredIdentifier('reference', STOCK_MAX_LENGTHS.reference);
  const sku = cells.requiredIdentifier('sku', ITEM_MAX_LENGTHS.sku);
  const locationCode = cells.requiredIdentifier('locationCode', LOCATION_MAX_LENGTHS.code);
  const quantityDelta = requiredQuantity(cells, 'quantityDelta', 'non-zero');
  const lot = optionalLot(cells, 'lot');
  const reason = cells.optionalText('reason', MAX_REASON_LENGTH);
  return cells.result<AdjustmentRow>(() =>
    reference === undefined || sku === undefined || locationCode === undefined || quantityDelta === undefined || lot === undefined
      ? undefined
      : { reference, sku, locationCode, quantityDelta, quantityDeltaCell: cells.cell('quantityDelta') ?? '', lot, reason: reason ?? null },
  );
}

export const stockAdjustmentsKind: ImportKindDefinition<AdjustmentRow, unknown> = {
  ...stockKindBasics,
  kind: KIND,
  title: 'Stock adjustments',
  description:
    'Adds to (positive quantityDelta) or takes from (negative) the stock of an item at a location, in a lot for items tracked by lot. A row that would take on-hand below zero fails with insufficient-stock. Re-importing a row moves nothing (natural key reference + sku + locationCode + lot). Emits movement.created, stock.changed and low-stock.',
  columns: [
    { name: 'reference', required: true, type: 'string', description: `Your reference of the adjustment, at most ${STOCK_MAX_LENGTHS.reference} characters.` },
    { name: 'sku', required: true, type: 'string', description: 'sku of an item of the organization.' },
    { name: 'locationCode', required: true, type: 'string', description: 'code of a location of the organization.' },
    { name: 'quantityDelta', required: true, type: 'number', description: 'Signed change of on-hand, not 0, at most 6 decimals.' },
    {
      name: 'lot',
      required: false,
      type: 'string',
      description: `Lot; required for items tracked by lot, refused for others. At most ${STOCK_MAX_LENGTHS.lot} characters.`,
    },
    { name: 'reason', required: false, type: 'string', description: `Why; carried by stock.changed. At most ${MAX_REASON_LENGTH} characters.` },
  ],
  naturalKey: ['reference', 'sku', 'locationCode', 'lot'],
  parseRow: parseAdjustment,
  naturalKeyOf: keyOf,
  references: onePlaceReferences,
  stock: {
    keysOf: onePlaceKeys,
  },
  decideUnit(unit, existing, strategy, context): UnitDecision {
    const row = oneRow(unit);
    const { rowNumber } = context;
    if (existing) return alreadyApplied(strategy, rowNumber, 'reference', row.reference, `Adjustment "${row.reference}" of ${row.sku} at ${row.locationCode}`);
    const item = context.resolve('item', row.sku)?.record as Item;
    const location = context.resolve('location', row.locationCode)?.record as Location;
    const { ledger, jobId } = stockOf(context);
    return claimed(decideAdjustment(row, { item, location }, ledger, { rowNumber, now: context.now }), keyOf(row), jobId, context.now);
  },
};
