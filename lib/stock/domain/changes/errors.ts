import { ApiError } from '../../../platform/core/errors.ts';

/**
 * The refusals of a stock change decided before its write (docs/inventory.md "Writing stock over
 * JSON"): each names every line it objects to, so a client fixes them all at once. None is stored
 * under the Idempotency-Key: the same request may succeed once the stock is as it expects.
 */

export interface StaleLine {
  line: number;
  stockRecordId: string | null;
  expectedQuantity: number;
  currentQuantity: number;
}

export interface ShortLine {
  line: number;
  stockRecordId: string | null;
  available: number;
  requested: number;
}

export interface AppliedLine {
  line: number;
  /** The change or import job that applied the natural key first. */
  appliedBy: string;
}

export class QuantityStaleError extends ApiError {
  constructor(lines: StaleLine[]) {
    super(409, 'customer-api.stock.quantity-stale', 'Quantity stale', {
      detail: `${lines.length === 1 ? 'A line’s stock record is' : `${lines.length} lines’ stock records are`} not at the expectedQuantity sent; read the current quantities in \`lines\` and send the change again.`,
      extensions: { lines },
    });
  }
}

export class InsufficientStockError extends ApiError {
  constructor(lines: ShortLine[]) {
    super(409, 'customer-api.stock.insufficient-stock', 'Insufficient stock', {
      detail: `${lines.length === 1 ? 'A line would' : `${lines.length} lines would`} take more than is available (on-hand less what reservations hold); see \`lines\`.`,
      extensions: { lines },
    });
  }
}

export class AlreadyAppliedError extends ApiError {
  constructor(lines: AppliedLine[]) {
    super(409, 'customer-api.stock.already-applied', 'Already applied', {
      detail: `${lines.length === 1 ? 'A line’s natural key was' : `${lines.length} lines’ natural keys were`} already applied (by an earlier request or an import); nothing was moved.`,
      extensions: { lines },
    });
  }
}
