import { ApiError, NotFoundError } from '../../platform/core/errors.ts';
import { sumQuantities } from '../../inventory/index.ts';
import type { ReservationStatus } from './statuses.ts';

/**
 * A reservation (docs/inventory.md "Reservations and available stock"): stock held at places for
 * an order or a build, so nothing else may take it, until it is released, fulfilled (shipped) or
 * expires. Each line holds one stock record; a request line without a lot on an item tracked by
 * lot holds the oldest lots first, one line per lot.
 */

export { RESERVATION_STATUSES, type ReservationStatus } from './statuses.ts';

/** Lines a request may hold (a line split across lots counts once). */
export const MAX_RESERVATION_LINES = 20;
/** Without `expiresAt`, a reservation expires this long after it was created. */
export const DEFAULT_RESERVATION_TTL_MS = 24 * 60 * 60 * 1000;
/** The latest `expiresAt` may be, after creation. */
export const MAX_RESERVATION_TTL_MS = 30 * 24 * 60 * 60 * 1000;

export interface ReservationLine {
  /** `rsl_…`: what a release or a fulfilment names. */
  lineId: string;
  itemId: string;
  sku: string;
  locationId: string;
  locationCode: string;
  lot: string | null;
  stockRecordId: string;
  quantity: number;
  fulfilledQuantity: number;
  releasedQuantity: number;
}

export interface Reservation {
  /** `res_…`. */
  id: string;
  reference: string;
  status: ReservationStatus;
  expiresAt: string;
  createdAt: string;
  updatedAt: string;
  lines: ReservationLine[];
}

/** What a line still holds. */
export function leftOf(line: ReservationLine): number {
  return sumQuantities([line.quantity, -line.fulfilledQuantity, -line.releasedQuantity]);
}

/**
 * The status after a release, a fulfilment or an expiry: active while any line holds something;
 * then `expired` when the sweep let go of the rest, `fulfilled` when anything was shipped,
 * `released` otherwise.
 */
export function statusAfter(lines: ReservationLine[], how: 'release' | 'fulfil' | 'expire'): ReservationStatus {
  if (lines.some((line) => leftOf(line) > 0)) return 'active';
  if (how === 'expire') return 'expired';
  return lines.some((line) => line.fulfilledQuantity > 0) ? 'fulfilled' : 'released';
}

export const reservationNotFound = () => new NotFoundError('reservations', 'No reservation with this id in the organization.');

export class ReferenceTakenError extends ApiError {
  constructor(reference: string, reservationId: string | null) {
    super(409, 'customer-api.reservations.reference-taken', 'Reference taken', {
      detail: `The organization already has a reservation with reference '${reference}'.`,
      extensions: { reservationId },
    });
  }
}

export class NotActiveError extends ApiError {
  constructor(reservation: Reservation) {
    super(409, 'customer-api.reservations.not-active', 'Reservation not active', {
      detail: `The reservation is ${reservation.status}: nothing is left to release or fulfil.`,
      extensions: { reservationStatus: reservation.status },
    });
  }
}

export interface OverLine {
  lineId: string;
  requested: number;
  left: number;
}

export class OverQuantityError extends ApiError {
  constructor(lines: OverLine[]) {
    super(409, 'customer-api.reservations.over-quantity', 'More than is left', {
      detail: `${lines.length === 1 ? 'A line asks' : `${lines.length} lines ask`} for more than the reservation has left; see \`lines\`.`,
      extensions: { lines },
    });
  }
}
