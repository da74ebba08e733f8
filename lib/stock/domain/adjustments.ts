import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { lotError, refusal, refused, type StockDecision } from './decision.ts';
import type { StockLedger } from './ledger.ts';

/**
 * Stock adjustments (docs/inventory.md "stock-adjustments"): one line adds to or takes from one
 * stock record; taking more than is on hand is refused.
 */

export interface AdjustmentRow {
  reference: string;
  sku: string;
  locationCode: string;
  quantityDelta: number;
  /** The cell as written, for the refusal. */
  quantityDeltaCell: string;
  lot: string | null;
  reason: string | null;
}

export function decideAdjustment(
  row: AdjustmentRow,
  place: { item: Item; location: Location },
  ledger: StockLedger,
  at: { rowNumber: number; now: string },
): StockDecision {
  const { item, location } = place;
  const lotProblem = lotError(item, row.lot, 'lot', at.rowNumber);
  if (lotProblem) return refused(lotProblem);
  const side = { location, lot: row.lot };
  const quantity = Math.abs(row.quantityDelta);
  const moved = ledger.move({
    type: 'adjustment',
    item,
    quantity,
    ...(row.quantityDelta < 0 ? { from: side } : { to: side }),
    reference: row.reference,
    reason: row.reason,
    occurredAt: at.now,
  });
  if (!moved.ok)
    return refused(
      refusal(moved, at.rowNumber, 'quantityDelta', row.quantityDeltaCell, `${row.sku} at ${row.locationCode}${row.lot ? ` (lot ${row.lot})` : ''}`, quantity),
    );
  return { ok: true, movementIds: [moved.movementId] };
}
