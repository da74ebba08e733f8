import type { Item } from '../inventory/item.ts';
import type { Location } from '../inventory/location.ts';
import { lotError, refusal, refused, type StockDecision } from './decision.ts';
import { hasRoomFor, newReceipt, withReceiptLine } from './documents.ts';
import type { StockLedger } from './ledger.ts';
import { documentKey, MAX_DOCUMENT_LINE_BYTES, MAX_DOCUMENT_LINES } from './records.ts';

/**
 * PO receipts (docs/inventory.md "po-receipts"): one line receives a quantity of an item into a
 * location; the lines of one poNumber in a file form one receipt (`rcp_…`).
 */

export interface ReceiptRow {
  poNumber: string;
  sku: string;
  locationCode: string;
  quantity: number;
  /** The cell as written, for the refusal. */
  quantityCell: string;
  lot: string | null;
  receivedAt: string | null;
}

export function decideReceiptLine(row: ReceiptRow, place: { item: Item; location: Location }, ledger: StockLedger, at: { rowNumber: number; now: string; jobId: string }): StockDecision {
  const { item, location } = place;
  const { rowNumber, jobId } = at;
  const lotProblem = lotError(item, row.lot, 'lot', rowNumber);
  if (lotProblem) return refused(lotProblem);
  const receipt = ledger.document(documentKey(jobId, 'po-receipt', row.poNumber)) ?? newReceipt(jobId, row.poNumber, at.now);
  const side = { location, lot: row.lot };
  const line = { itemId: item.id, sku: item.sku, locationId: location.id, quantity: row.quantity, lot: row.lot, stockRecordId: ledger.recordAt(item, side).id };
  if (!hasRoomFor(receipt, line)) {
    return refused({
      rowNumber,
      column: 'poNumber',
      value: row.poNumber,
      code: 'too-many-lines',
      message: `A receipt holds at most ${MAX_DOCUMENT_LINES} lines (${MAX_DOCUMENT_LINE_BYTES / 1024} KiB) per file; split PO "${row.poNumber}" across files.`,
    });
  }
  const moved = ledger.move({ type: 'receipt', item, quantity: row.quantity, to: side, reference: row.poNumber, occurredAt: row.receivedAt ?? at.now });
  if (!moved.ok) return refused(refusal(moved, rowNumber, 'quantity', row.quantityCell, `${row.sku} at ${row.locationCode}`, row.quantity));
  ledger.putDocument(withReceiptLine(receipt, line));
  return { ok: true, movementIds: [moved.movementId] };
}
