import { ValidationError, type FieldError } from '../../platform/core/errors.ts';
import { ulid } from '../../platform/core/ids.ts';
import { sumQuantities } from '../../inventory/index.ts';
import { InsufficientStockError } from '../../stock/index.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { settleLines, type SettleAction } from './apply.ts';
import { RESERVATION_COMMAND_WRITES } from './limits.ts';
import { rememberRequest, remembers, type PendingOperation } from './pending.ts';
import type { ReservationPorts, SliceRun, StoredReservation } from './ports.ts';
import { leftOf, NotActiveError, OverQuantityError, statusAfter, type OverLine, type Reservation } from './reservation.ts';
import { changeTime, keptMovingOnError, OperationMovedOnError, ReservationSlices, storedOrNotFound } from './slices.ts';

/**
 * Releasing and fulfilling a reservation (docs/inventory.md "Reservations and available stock"),
 * and its expiry: each named line (or every line, for what it has left) lets go of its quantity
 * (`reserved` down, on-hand as it is) or ships it (a `shipment` movement out of on-hand and
 * reserved together), all lines or none, with the reservation written over the version read and
 * its before-image: in one transaction when its writes fit one, else in slices
 * (lib/reservations/domain/slices.ts). An operation another request left in progress is finished
 * first; a request that finds its own (a retry after a crash) finishes it and answers with it.
 */

export type { SettleAction } from './apply.ts';
export { changeTime } from './slices.ts';

export interface SettleLineInput {
  lineId: string;
  quantity: number;
}

const AUDIT = { release: 'reservation.released', fulfil: 'reservation.fulfilled', expire: 'reservation.expired' } as const;
const PAST: Record<SettleAction, string> = { release: 'released', fulfil: 'fulfilled', expire: 'expired' };
/** Operations of others finished (or lost races to them) before a request gives up with 409 conflict. */
const MAX_DECISIONS = 8;

export class SettleReservationCommand<Write> {
  private readonly slices: ReservationSlices<Write>;

  constructor(private readonly ports: ReservationPorts<Write>) {
    this.slices = new ReservationSlices(ports);
  }

  /**
   * The plan of the (last) transaction of the settle; `lines` undefined: everything every line
   * has left. `run` commits the slices before the last of a larger one (without it, only
   * operations of one transaction are possible).
   */
  async settle(
    organizationId: string,
    id: string,
    action: SettleAction,
    lines: SettleLineInput[] | undefined,
    run?: SliceRun<Write>,
  ): Promise<CommandPlan<Reservation, Write>> {
    for (let decision = 1; ; decision += 1) {
      const stored = await storedOrNotFound(this.ports, organizationId, id);
      try {
        return await this.decide(organizationId, stored, action, lines, run);
      } catch (error) {
        if (!(error instanceof OperationMovedOnError)) throw error;
        if (decision >= MAX_DECISIONS) throw keptMovingOnError();
      }
    }
  }

  /** Finishes the operation in progress on the reservation, if any (the expiry sweep's errand for a request that did not). */
  async finishPending(organizationId: string, id: string, run: SliceRun<Write>): Promise<void> {
    for (let decision = 1; decision <= MAX_DECISIONS; decision += 1) {
      const stored = await this.ports.reservations.get(organizationId, id);
      if (!stored?.pending) return;
      await this.slices.finish(organizationId, stored, run);
    }
  }

  private async decide(
    organizationId: string,
    stored: StoredReservation,
    action: SettleAction,
    lines: SettleLineInput[] | undefined,
    run: SliceRun<Write> | undefined,
  ): Promise<CommandPlan<Reservation, Write>> {
    const { ports } = this;
    const requestKey = run?.requestKey ?? null;
    if (stored.pending) {
      if (requestKey !== null && stored.pending.requestKey === requestKey) return this.slices.toLast(organizationId, stored, stored.pending, run);
      await this.slices.finish(organizationId, stored, run);
      throw new OperationMovedOnError('Finished the operation in progress first');
    }
    const { reservation, version } = stored;
    // This request's operation was finished by another writer after it crashed: answer with it, apply nothing.
    const now = ports.clock?.() ?? new Date();
    if (remembers(stored.requests, requestKey, now))
      return { writes: [ports.reservations.unchangedWrite(organizationId, reservation.id, version)], events: [], result: reservation };
    if (reservation.status !== 'active') throw new NotActiveError(reservation);
    const amounts = amountsOf(reservation, lines);

    const at = changeTime(reservation, now);
    const applied = await settleLines(ports, organizationId, reservation, reservation.lines, amounts, action, at);
    if (applied.short.length > 0) {
      // Another request shipped these lines after this one read the reservation: decide again on it.
      if ((await ports.reservations.get(organizationId, reservation.id))?.version !== version)
        throw new OperationMovedOnError('The reservation changed while it was decided');
      // A count set on-hand below what the reservation holds: it cannot ship more than is there.
      throw new InsufficientStockError(applied.short);
    }
    const next: Reservation = { ...reservation, lines: applied.lines, status: statusAfter(applied.lines, action), updatedAt: at };
    const writes = [
      ...applied.writes.flatMap((write) => ports.stock.writesOf(organizationId, write)),
      ports.reservations.updateWrite(organizationId, next, version, { requests: rememberRequest(stored.requests, requestKey, at) }),
      ports.beforeImages.write(organizationId, reservation, at),
    ];
    if (writes.length <= RESERVATION_COMMAND_WRITES) {
      return {
        writes,
        events: applied.events,
        audit: {
          kind: AUDIT[action],
          target: { kind: 'reservation', id: reservation.id },
          summary: `Reservation ${PAST[action]}: ${reservation.reference}`,
          changes: [],
        },
        result: next,
      };
    }
    // More than one transaction holds: in slices, the lines in the reservation's order.
    const pending: PendingOperation = {
      kind: action,
      id: ulid(),
      requestKey,
      startedAt: at,
      slicesDone: 0,
      amounts: reservation.lines.flatMap((line) =>
        (amounts.get(line.lineId) ?? 0) > 0 ? [{ lineId: line.lineId, quantity: amounts.get(line.lineId) ?? 0 }] : [],
      ),
    };
    return this.slices.toLast(organizationId, stored, pending, run);
  }
}

/** How much of each line to settle: as asked, or all that is left; unknown lines are a 400, more than is left a 409. */
function amountsOf(reservation: Reservation, lines: SettleLineInput[] | undefined): Map<string, number> {
  if (lines === undefined) return new Map(reservation.lines.map((line) => [line.lineId, leftOf(line)]));
  const byId = new Map(reservation.lines.map((line) => [line.lineId, line]));
  const errors: FieldError[] = [];
  const over: OverLine[] = [];
  const amounts = new Map<string, number>();
  lines.forEach((asked, index) => {
    const line = byId.get(asked.lineId);
    if (!line) {
      errors.push({ location: 'body', pointer: `/lines/${index}/lineId`, code: 'unknown-line', message: `The reservation has no line '${asked.lineId}'.` });
      return;
    }
    const total = sumQuantities([amounts.get(asked.lineId) ?? 0, asked.quantity]);
    amounts.set(asked.lineId, total);
    if (total > leftOf(line)) over.push({ lineId: asked.lineId, requested: total, left: leftOf(line) });
  });
  if (errors.length > 0) throw new ValidationError(errors, 'Lines name lines the reservation does not have; see `errors`.');
  if (over.length > 0) throw new OverQuantityError(over);
  return amounts;
}
