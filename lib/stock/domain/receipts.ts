import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
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

export function decideReceiptLine(
  row: ReceiptRow,
  place: { item: Item; location: Location },
  ledger: StockLedger,
  at: { rowNumber: number; now: string; jobId: string },
): StockDecision {
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

const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T([01]\d|2[0-3]):[0-5]\d:[0-5]\d(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** Clocks differ: a receipt may be dated this far ahead of the server's time. */
const FUTURE_TOLERANCE_MS = 5 * 60_000;

/** A date-time whose calendar day exists (`Date.parse` rolls February 30 over to March 2). */
function parseDateTime(text: string): number {
  const match = DATE_TIME.exec(text);
  if (!match) return Number.NaN;
  const [year, month, day] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCFullYear() !== year || calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return Number.NaN;
  return Date.parse(text);
}

/**
 * When goods arrived, as a receipt gives it (a `po-receipts` cell or a JSON receipt's
 * `receivedAt`): ISO 8601 with Z or an offset, from 1970 on (a movement's id carries its time as a
 * ULID, which starts then), not in the future; the movement's `occurredAt` in UTC to the millisecond.
 */
export function receivedAtTime(text: string, now = Date.now()): { ok: true; value: string } | { ok: false; message: string } {
  const time = parseDateTime(text);
  if (Number.isNaN(time) || time > now + FUTURE_TOLERANCE_MS)
    return { ok: false, message: 'must be a date-time such as 2026-11-22T09:30:00Z, not in the future.' };
  if (time < 0) return { ok: false, message: 'must not be before 1970-01-01T00:00:00Z.' };
  return { ok: true, value: new Date(time).toISOString() };
}
