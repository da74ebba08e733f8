import { ApiError } from '../errors.ts';
import { MAX_RESERVATION_LINES } from './reservation.ts';

/**
 * How many stock records (lots) one reservation may hold (docs/inventory.md "Reservations and
 * available stock"). A reservation is created, released, fulfilled and expired in ONE transaction
 * each, and DynamoDB's TransactWriteItems takes at most 100 actions, of which the writer takes 4:
 * the event counter, the item holding the events (a reservation's events take a few hundred bytes
 * each, far below the size at which they would split), the audit entry and the Idempotency-Key
 * completion. The largest settle is a fulfilment; counted in the worst case it writes
 * - per stored line (one per lot held): its shipment movement (1) and its stock record (1: it
 *   exists, and an update leaves its list entries as they are): 2;
 * - per item: its total (1); every stored line comes from one of at most MAX_RESERVATION_LINES
 *   request lines, each of one item;
 * - once: the reservation (1) and its before-image (1): 2.
 * A release or an expiry writes no movement. So a reservation holds at most as many lots as a
 * fulfilment of all of them carries, and a create that would hold more is refused with
 * TooManyLotsError (test/unit/reservations/limits.test.ts builds the plans of a maximal one).
 */
const TRANSACTION_ACTIONS = 100;
const WRITER_ACTIONS = 4;
/** What a reservation command's own writes may take: the rest is the writer's. */
export const RESERVATION_COMMAND_WRITES = TRANSACTION_ACTIONS - WRITER_ACTIONS;
const SETTLE_WRITES_PER_STORED_LINE = 2;
const SETTLE_WRITES_ONCE = 2;

/** Stored lines (stock records, one per lot) a reservation may hold: 37. */
export const MAX_RESERVATION_STORED_LINES = Math.floor((RESERVATION_COMMAND_WRITES - SETTLE_WRITES_ONCE - MAX_RESERVATION_LINES) / SETTLE_WRITES_PER_STORED_LINE);

/**
 * A create that would hold more lots than one transaction can settle, or that would pass over so
 * many lots other reservations hold in full (each is checked unchanged in its transaction) that it
 * does not fit one transaction itself.
 */
export class TooManyLotsError extends ApiError {
  constructor(storedLines: number) {
    const why =
      storedLines > MAX_RESERVATION_STORED_LINES
        ? `These lines would hold ${storedLines} lots; a reservation holds at most ${MAX_RESERVATION_STORED_LINES}, so that one transaction can release or fulfil it.`
        : `Holding these lines passes over more lots other reservations hold in full than one transaction can check.`;
    super(409, 'customer-api.reservations.too-many-lots', 'Too many lots', {
      detail: `${why} Name the lots to hold (\`lot\`) or reserve less at a time.`,
      extensions: { storedLines, maxStoredLines: MAX_RESERVATION_STORED_LINES },
    });
  }
}
