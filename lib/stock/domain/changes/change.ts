/**
 * A stock change made over JSON (docs/inventory.md "Writing stock over JSON"): what one request to
 * `POST /v1/stock/adjustments` (and its siblings) applied, all lines or none, as the response and
 * `GET /v1/stock/changes/{id}` give it.
 */

export const STOCK_CHANGE_KINDS = ['adjustment', 'transfer', 'count', 'receipt'] as const;
export type StockChangeKind = (typeof STOCK_CHANGE_KINDS)[number];

/** Lines a request may hold; larger changes go through the imports (the bulk path). */
export const MAX_CHANGE_LINES = 20;

/** One stock record a line changed (a transfer line gives two: its source, then its destination). */
export interface StockChangeLine {
  /** The request line, 0-based. */
  line: number;
  movementId: string | null;
  stockRecordId: string;
  itemId: string;
  sku: string;
  locationId: string;
  locationCode: string;
  lot: string | null;
  previousQuantity: number;
  quantity: number;
  delta: number;
  /** Held by reservations after the change. */
  reserved: number;
  /** `quantity - reserved`. */
  available: number;
}

export interface StockChange {
  /** `chg_…`. */
  id: string;
  kind: StockChangeKind;
  reference: string;
  reason: string | null;
  occurredAt: string;
  lines: StockChangeLine[];
}
