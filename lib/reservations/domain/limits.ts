import { ApiError } from '../../platform/core/errors.ts';
import { MAX_RESERVATION_LINES } from './reservation.ts';

/**
 * How much of a reservation one transaction settles (docs/inventory.md "Reservations and
 * available stock"). DynamoDB's TransactWriteItems takes at most 100 actions, of which the writer
 * takes 4: the event counter, the item holding the events (a slice's events take a few hundred
 * bytes each, far below the size at which they would split), the audit entry and the
 * Idempotency-Key completion. An operation whose writes fit the rest commits in one transaction,
 * as it always did; a larger one runs in slices of LINES_PER_SLICE lots
 * (lib/reservations/domain/slices.ts). The largest slice is a fulfilment's; counted in the worst
 * case it writes
 * - per lot: its shipment movement (1) and its stock record (1): 2;
 * - per item: its total (1); every lot comes from one of at most MAX_RESERVATION_LINES request
 *   lines, each of one item;
 * - once: the reservation (1) and its before-image, or (a create's first slice) the claim of its
 *   reference, or (an unwind's last) the claim's delete (1): 2.
 */
const TRANSACTION_ACTIONS = 100;
const WRITER_ACTIONS = 4;
/** What a reservation command's own writes may take: the rest is the writer's. */
export const RESERVATION_COMMAND_WRITES = TRANSACTION_ACTIONS - WRITER_ACTIONS;
const SLICE_WRITES_PER_LOT = 2;
const SLICE_WRITES_ONCE = 2;

/** Lots one slice settles: 37. */
export const LINES_PER_SLICE = Math.floor((RESERVATION_COMMAND_WRITES - SLICE_WRITES_ONCE - MAX_RESERVATION_LINES) / SLICE_WRITES_PER_LOT);

/**
 * A reservation is one item of the inventory table, which DynamoDB caps at 400 KB (409,600 bytes).
 * While a create runs in slices, the item holds the lots held so far and the operation's plan of
 * every lot, so its lines are stored about twice; a release, a fulfilment or an expiry stores a
 * line id and a quantity per lot. A create is refused when its lines and its plan, as JSON (which
 * counts every attribute name and more than DynamoDB stores for a number), pass this bound: the
 * rest of the 400 KB is the keys, the status fields and the last requests' hashes and times.
 * Lots of short skus, codes and lots take about 300 bytes each, so roughly 500 lots fit; lots
 * whose every text is at its longest, about 1,000 bytes each, about 150
 * (test/unit/reservations/slices.test.ts).
 */
export const MAX_RESERVATION_PLAN_BYTES = 340_000;

/** The bytes a create's reservation and its plan take as JSON: what MAX_RESERVATION_PLAN_BYTES bounds. */
export function reservationPlanBytes(reservation: unknown, holds: unknown): number {
  return Buffer.byteLength(JSON.stringify({ reservation, holds }));
}

/**
 * A create that would hold more lots than one stored reservation records (each lot is a line of
 * it): nothing is held. Split across several reservations, or name the lots to hold.
 */
export class ReservationTooLargeError extends ApiError {
  constructor(storedLines: number, bytes: number) {
    super(409, 'customer-api.reservations.too-large', 'Reservation too large', {
      detail: `These lines would hold ${storedLines} lots, whose record (${bytes} bytes with the plan of its holds) passes the ${MAX_RESERVATION_PLAN_BYTES} bytes one stored reservation may take. Reserve the quantity across several reservations, or name larger lots to hold (\`lot\`).`,
      extensions: { storedLines },
    });
  }
}
