import type { Item } from '../../inventory/index.ts';
import type { ItemStock } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';

export type { ItemStock };

/**
 * What stock flows keep beside stock records and their ledger (docs/inventory.md "The stock
 * model"): the item's on-hand across locations (what low-stock is decided on), one claim per
 * applied row (what makes a re-import move nothing twice), and the receipts and counts a file
 * records.
 */

/**
 * The claim of one applied row (or build), by the kind's natural key. Written with the row's
 * movements, never changed; a row whose claim exists is a duplicate.
 */
export interface StockEntry {
  /** `<kind>#<natural key>`. */
  key: string;
  jobId: string;
  movementIds: string[];
  /** The build it recorded (`bld_…`), for the builds kind. */
  buildId?: string;
  appliedAt: string;
}

export const DOCUMENT_TYPES = ['po-receipt', 'stock-count'] as const;
export type DocumentType = (typeof DOCUMENT_TYPES)[number];

export interface ReceiptLine {
  itemId: string;
  sku: string;
  locationId: string;
  quantity: number;
  lot: string | null;
  stockRecordId: string;
}

export interface CountLine {
  itemId: string;
  sku: string;
  lot: string | null;
  expected: number;
  counted: number;
  delta: number;
}

interface DocumentBase {
  /** `rcp_…` or `cnt_…`: what attachments target. */
  id: string;
  /** `<jobId>#<document type>#<reference>`: one receipt per PO and one count per count reference in a file. */
  key: string;
  jobId: string;
  reference: string;
  createdAt: string;
  /** Set when the file's last row of the document is handled and its event emitted. */
  closed: boolean;
  /** UTF-8 bytes of the lines as JSON: the document and its event must fit one stored item. */
  linesBytes: number;
}

export type StockDocument =
  (DocumentBase & { type: 'po-receipt'; lines: ReceiptLine[] }) | (DocumentBase & { type: 'stock-count'; locationId: string; lines: CountLine[] });

/** Maximum lengths in characters of the business references (adjustment, transfer, count, PO, build) and of lots. */
export const STOCK_MAX_LENGTHS = { reference: 64, lot: 64 } as const;

/** At most this many lines of one receipt or count per file: its event must fit one stored event. */
export const MAX_DOCUMENT_LINES = 1000;
/** And at most this many bytes of lines (DynamoDB stores at most 400 KB per item). */
export const MAX_DOCUMENT_LINE_BYTES = 256 * 1024;

/**
 * The most a stock record, or an item across all its records, may hold: quantities stay exact
 * (in millionths, far below 2^53) and storable as numbers.
 */
export const MAX_ON_HAND = 1_000_000_000;

/** One stock record's place: an item at a location in a lot (null for items not tracked by lot). */
export interface StockPlace {
  item: Item;
  location: Location;
  lot: string | null;
}

export function documentKey(jobId: string, type: DocumentType, reference: string): string {
  return `${jobId}#${type}#${reference}`;
}
