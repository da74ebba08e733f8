import { MAX_RESERVATION_LINES } from './reservation.ts';

/**
 * How much of a reservation one transaction settles (docs/inventory.md "Reservations and
 * available stock"). DynamoDB's TransactWriteItems takes at most 100 actions, of which the writer
 * takes 4: the event counter, the item holding the events (a slice's events take a few hundred
 * bytes each, far below the size at which they would split), the audit entry and the
 * Idempotency-Key completion. An operation whose writes fit the rest commits in one transaction,
 * as it always did; a larger one runs in slices of LINES_PER_SLICE lots
 * (lib/domain/reservations/slices.ts). The largest slice is a fulfilment's; counted in the worst
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
