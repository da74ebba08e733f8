import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { lotError, refusal, refused, type StockDecision } from './decision.ts';
import type { StockLedger } from './ledger.ts';

/**
 * Stock transfers (docs/inventory.md "stock-transfers"): one line moves a quantity of one item
 * (and lot) from one location to another, as one movement with two ledger entries.
 */

export interface TransferRow {
  reference: string;
  sku: string;
  fromLocationCode: string;
  toLocationCode: string;
  quantity: number;
  /** The cell as written, for the refusal. */
  quantityCell: string;
  lot: string | null;
}

export function decideTransfer(
  row: TransferRow,
  places: { item: Item; from: Location; to: Location },
  ledger: StockLedger,
  at: { rowNumber: number; now: string },
): StockDecision {
  const { item, from, to } = places;
  const lotProblem = lotError(item, row.lot, 'lot', at.rowNumber);
  if (lotProblem) return refused(lotProblem);
  const moved = ledger.move({
    type: 'transfer',
    item,
    quantity: row.quantity,
    from: { location: from, lot: row.lot },
    to: { location: to, lot: row.lot },
    reference: row.reference,
    occurredAt: at.now,
  });
  if (!moved.ok) {
    return refused(
      refusal(
        moved,
        at.rowNumber,
        'quantity',
        row.quantityCell,
        `${row.sku} at ${moved.reason === 'insufficient-stock' ? row.fromLocationCode : row.toLocationCode}${row.lot ? ` (lot ${row.lot})` : ''}`,
        row.quantity,
      ),
    );
  }
  return { ok: true, movementIds: [moved.movementId] };
}
