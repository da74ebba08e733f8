import type { EventDraft } from '../../platform/events/types.ts';
import { newId } from '../../platform/core/ids.ts';
import { documentKey, MAX_DOCUMENT_LINE_BYTES, MAX_DOCUMENT_LINES, type CountLine, type ReceiptLine, type StockDocument } from './records.ts';

/**
 * Receipts and counts (docs/inventory.md "Receipts and counts"): the lines of one PO, or of one
 * count reference, that one file applied. Lines gather as their rows are applied, chunk after
 * chunk; the file's last row of the document closes it and emits `po.received` or
 * `count.completed` with every line, once.
 */

export function newReceipt(jobId: string, poNumber: string, now: string): StockDocument {
  return {
    type: 'po-receipt',
    id: newId('rcp'),
    key: documentKey(jobId, 'po-receipt', poNumber),
    jobId,
    reference: poNumber,
    createdAt: now,
    closed: false,
    linesBytes: 0,
    lines: [],
  };
}

export function newCount(jobId: string, countReference: string, locationId: string, now: string): StockDocument {
  return {
    type: 'stock-count',
    id: newId('cnt'),
    key: documentKey(jobId, 'stock-count', countReference),
    jobId,
    reference: countReference,
    locationId,
    createdAt: now,
    closed: false,
    linesBytes: 0,
    lines: [],
  };
}

const lineBytes = (line: ReceiptLine | CountLine) => Buffer.byteLength(JSON.stringify(line)) + 1;

/** Whether one more line fits the document (in number and in bytes). */
export function hasRoomFor(document: StockDocument, line: ReceiptLine | CountLine): boolean {
  return document.lines.length < MAX_DOCUMENT_LINES && document.linesBytes + lineBytes(line) <= MAX_DOCUMENT_LINE_BYTES;
}

export function withReceiptLine(document: StockDocument, line: ReceiptLine): StockDocument {
  if (document.type !== 'po-receipt') throw new Error(`${document.id} is not a receipt`);
  return { ...document, lines: [...document.lines, line], linesBytes: document.linesBytes + lineBytes(line) };
}

export function withCountLine(document: StockDocument, line: CountLine): StockDocument {
  if (document.type !== 'stock-count') throw new Error(`${document.id} is not a count`);
  return { ...document, lines: [...document.lines, line], linesBytes: document.linesBytes + lineBytes(line) };
}

export function documentEvent(document: StockDocument, occurredAt: string): EventDraft {
  if (document.type === 'po-receipt') {
    return {
      type: 'po.received',
      occurredAt,
      data: { poNumber: document.reference, receiptId: document.id, lines: document.lines.map((line) => ({ ...line })) },
    };
  }
  return {
    type: 'count.completed',
    occurredAt,
    data: { countId: document.id, countReference: document.reference, locationId: document.locationId, lines: document.lines.map((line) => ({ ...line })) },
  };
}
