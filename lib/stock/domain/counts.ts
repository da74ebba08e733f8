import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { sumQuantities } from '../../inventory/index.ts';
import { lotError, refusal, refused, type StockDecision } from './decision.ts';
import { hasRoomFor, newCount, withCountLine } from './documents.ts';
import type { StockLedger } from './ledger.ts';
import { documentKey, MAX_DOCUMENT_LINE_BYTES, MAX_DOCUMENT_LINES } from './records.ts';

/**
 * Stock counts (docs/inventory.md "stock-counts"): one line states what was counted of an item
 * (and lot) at the count's location; on-hand is set to it and the variance recorded as a `count`
 * movement. The lines of one count reference in a file form one count (`cnt_…`) at one location.
 */

export interface CountRow {
  countReference: string;
  locationCode: string;
  sku: string;
  countedQuantity: number;
  /** The cell as written, for the refusal. */
  countedQuantityCell: string;
  lot: string | null;
}

export function decideCountLine(
  row: CountRow,
  place: { item: Item; location: Location },
  ledger: StockLedger,
  at: { rowNumber: number; now: string; jobId: string },
): StockDecision {
  const { item, location } = place;
  const { rowNumber, jobId } = at;
  const lotProblem = lotError(item, row.lot, 'lot', rowNumber);
  if (lotProblem) return refused(lotProblem);
  const count = ledger.document(documentKey(jobId, 'stock-count', row.countReference)) ?? newCount(jobId, row.countReference, location.id, at.now);
  if (count.type !== 'stock-count') throw new Error('A count document is a stock count');
  if (count.locationId !== location.id) {
    return refused({
      rowNumber,
      column: 'locationCode',
      value: row.locationCode,
      code: 'invalid-value',
      message: `Count "${row.countReference}" is of another location; a count covers one location.`,
    });
  }
  const side = { location, lot: row.lot };
  const expected = ledger.onHand(item, side);
  const delta = sumQuantities([row.countedQuantity, -expected]);
  const line = { itemId: item.id, sku: item.sku, lot: row.lot, expected, counted: row.countedQuantity, delta };
  if (!hasRoomFor(count, line)) {
    return refused({
      rowNumber,
      column: 'countReference',
      value: row.countReference,
      code: 'too-many-lines',
      message: `A count holds at most ${MAX_DOCUMENT_LINES} lines (${MAX_DOCUMENT_LINE_BYTES / 1024} KiB) per file; split count "${row.countReference}" across files.`,
    });
  }
  const movementIds: string[] = [];
  if (delta !== 0) {
    const moved = ledger.move({
      type: 'count',
      item,
      quantity: Math.abs(delta),
      ...(delta < 0 ? { from: side } : { to: side }),
      reference: row.countReference,
      occurredAt: at.now,
    });
    if (!moved.ok) return refused(refusal(moved, rowNumber, 'countedQuantity', row.countedQuantityCell, `${row.sku} at ${row.locationCode}`, Math.abs(delta)));
    movementIds.push(moved.movementId);
  }
  ledger.putDocument(withCountLine(count, line));
  return { ok: true, movementIds };
}
