import type { AuditDraft, AuditKind } from '../../platform/audit/types.ts';
import { ApiError } from '../../platform/core/errors.ts';
import type { EventDraft } from '../../platform/events/types.ts';
import { InsufficientStockError } from '../../stock/index.ts';
import type { StockWrite } from '../../stock/index.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { holdLines, settleLines, type SettleAction } from './apply.ts';
import { LINES_PER_SLICE } from './limits.ts';
import { rememberRequest, stepsOf, type PendingOperation } from './pending.ts';
import type { ReservationPorts, ReservationProgress, SliceRun, StoredReservation } from './ports.ts';
import { leftOf, reservationNotFound, statusAfter, type Reservation } from './reservation.ts';

/**
 * An operation on a reservation in slices (docs/inventory.md "Reservations and available
 * stock"), as the build runner does builds: each slice is one transaction that applies the next
 * LINES_PER_SLICE lots and writes the reservation over the version it read, with the operation's
 * `slicesDone` one higher (its checkpoint). A slice committed by another writer fails that
 * condition: the reservation is read again and the operation goes on from where it stands, so
 * every slice applies once whatever crashes or concurrent requests happen. Until the last slice
 * the reservation keeps its status and the operation stays stored beside it; the last slice
 * removes it, sets the status and writes the audit entry.
 *
 * A create whose lot a race took half way unwinds: what its earlier slices held is let go of,
 * slice by slice, and the last slice deletes the reservation and its reference's claim; the
 * request answers 409 insufficient-stock. A fulfilment that a count left short half way stops
 * there: earlier slices stay shipped, the rest stays held, 409 insufficient-stock.
 */

/** A slice that keeps losing races without the reservation moving is left to the next touch after this many tries. */
const MAX_SLICE_CONFLICTS = 8;

const AUDIT: Record<Exclude<PendingOperation['kind'], 'unwind'>, AuditKind> = {
  create: 'reservation.created',
  release: 'reservation.released',
  fulfil: 'reservation.fulfilled',
  expire: 'reservation.expired',
};
const PAST: Record<SettleAction, string> = { release: 'released', fulfil: 'fulfilled', expire: 'expired' };

/** The operation the reservation was read with was finished or replaced by another writer: decide again from what is stored. */
export class OperationMovedOnError extends Error {
  override name = 'OperationMovedOnError';
}

/** What a request answers when other writers kept moving the reservation on each time it was decided again: a 409 to retry, not a 500. */
export const keptMovingOnError = () =>
  new ApiError(409, 'customer-api.request.conflict', 'Conflict', {
    detail: 'Other requests kept changing the reservation while this one was decided; retry the request.',
  });

interface Slice<Write> {
  plan: CommandPlan<Reservation, Write>;
  /** What is stored once it commits. */
  after: StoredReservation;
  /** The operation ends with this slice. */
  last: boolean;
  /** The operation ends with this slice on a refusal, thrown once the slice commits. */
  failure?: ApiError;
}

export class ReservationSlices<Write> {
  constructor(private readonly ports: ReservationPorts<Write>) {}

  /**
   * Commits every slice of `operation` but the last (`stored` is the reservation it starts from:
   * version 0 for a create not stored yet), and returns the last slice's plan for the caller to
   * commit. A slice that ends the operation on a refusal is committed here and its error thrown.
   */
  async toLast(
    organizationId: string,
    stored: StoredReservation,
    operation: PendingOperation,
    run: SliceRun<Write> | undefined,
  ): Promise<CommandPlan<Reservation, Write>> {
    let current = stored;
    let pending = operation;
    let conflicts = 0;
    for (;;) {
      const slice = await this.next(organizationId, current, pending);
      if (slice.last && !slice.failure) return slice.plan;
      if (!run) throw new Error(`Reservation ${current.reservation.id}: an operation of several transactions needs a writer for its slices`);
      try {
        await run.writer.run(run.context, async () => slice.plan);
      } catch (error) {
        if (!isConflict(error) || current.version === 0) throw error;
        // Another writer moved the reservation, or changed a stock record this slice read.
        const latest = await this.ports.reservations.get(organizationId, current.reservation.id);
        if (!latest?.pending || latest.pending.id !== pending.id)
          throw new OperationMovedOnError(`The operation on reservation ${current.reservation.id} was finished by another writer`);
        if (latest.version !== current.version) conflicts = 0;
        else if (++conflicts > MAX_SLICE_CONFLICTS) throw error;
        current = latest;
        pending = latest.pending;
        continue;
      }
      if (slice.failure) throw slice.failure;
      if (!slice.after.pending) throw new Error('A slice before the last leaves its operation stored');
      current = slice.after;
      pending = slice.after.pending;
      conflicts = 0;
      await run.afterSlice?.(pending.kind, pending.slicesDone);
    }
  }

  /** Finishes the operation stored with the reservation, its last slice included; a refusal it ends on is the requester's, not this caller's. */
  async finish(organizationId: string, stored: StoredReservation, run: SliceRun<Write> | undefined): Promise<void> {
    if (!stored.pending) return;
    if (!run) throw new Error(`Reservation ${stored.reservation.id} has an operation in progress: finishing it needs a writer`);
    try {
      const last = await this.toLast(organizationId, stored, stored.pending, run);
      await run.writer.run(run.context, async () => last);
    } catch (error) {
      if (error instanceof OperationMovedOnError || isConflict(error) || error instanceof InsufficientStockError) return;
      throw error;
    }
  }

  /** The next slice of `pending` over `stored`. */
  private async next(organizationId: string, stored: StoredReservation, pending: PendingOperation): Promise<Slice<Write>> {
    const from = pending.slicesDone * LINES_PER_SLICE;
    const to = from + LINES_PER_SLICE;
    const last = to >= stepsOf(pending);
    const { reservation } = stored;
    // A create's first slice happens when the reservation is created.
    const at = stored.version === 0 ? reservation.updatedAt : changeTime(reservation, this.ports.clock?.() ?? new Date());
    switch (pending.kind) {
      case 'create': {
        const holds = pending.holds.slice(from, to);
        const applied = await holdLines(
          this.ports,
          organizationId,
          reservation.id,
          holds.map((hold) => hold.line),
          at,
        );
        if (applied.short.length > 0) {
          const short = applied.short.map((line) => {
            const hold = holds[line.line]!;
            return { ...line, line: hold.requestLine, requested: hold.requested };
          });
          // Nothing held yet: nothing to unwind, nothing stored.
          if (stored.version === 0) throw new InsufficientStockError(short);
          const unwind: PendingOperation = {
            kind: 'unwind',
            id: pending.id,
            requestKey: pending.requestKey,
            startedAt: pending.startedAt,
            slicesDone: 0,
            lineIds: reservation.lines.map((line) => line.lineId),
            short,
          };
          return this.slice(organizationId, stored, reservation, { ...stored, pending: unwind }, [], [], undefined, false);
        }
        const next: Reservation = {
          ...reservation,
          lines: [...reservation.lines, ...applied.lines],
          updatedAt: stored.version === 0 ? reservation.updatedAt : at,
        };
        const progress = this.progressAfter(stored, pending, last);
        const audit: AuditDraft | undefined = last
          ? {
              kind: AUDIT.create,
              target: { kind: 'reservation', id: reservation.id },
              summary: `Reservation created: ${reservation.reference} (${next.lines.length} line${next.lines.length === 1 ? '' : 's'})`,
              changes: [],
            }
          : undefined;
        return this.slice(organizationId, stored, next, progress, applied.writes, applied.events, audit, last);
      }
      case 'unwind': {
        const lineIds = new Set(pending.lineIds.slice(from, to));
        const amounts = new Map(reservation.lines.filter((line) => lineIds.has(line.lineId)).map((line) => [line.lineId, leftOf(line)]));
        const applied = await settleLines(this.ports, organizationId, reservation, reservation.lines, amounts, 'release', at);
        const next: Reservation = { ...reservation, lines: applied.lines, updatedAt: at };
        if (!last)
          return this.slice(organizationId, stored, next, this.progressAfter(stored, pending, false), applied.writes, applied.events, undefined, false);
        const writes = [
          ...applied.writes.flatMap((write) => this.ports.stock.writesOf(organizationId, write)),
          ...this.ports.reservations.deleteWrites(organizationId, reservation, stored.version),
        ];
        return {
          plan: { writes, events: applied.events, result: next },
          after: { reservation: next, version: stored.version + 1, requests: stored.requests },
          last: true,
          failure: new InsufficientStockError(pending.short),
        };
      }
      default: {
        const amounts = new Map(pending.amounts.slice(from, to).map((amount) => [amount.lineId, amount.quantity]));
        const applied = await settleLines(this.ports, organizationId, reservation, reservation.lines, amounts, pending.kind, at);
        if (applied.short.length > 0) {
          // A count set on-hand below what is held since the fulfilment began: it stops here.
          const failure = new InsufficientStockError(applied.short);
          return { ...(await this.slice(organizationId, stored, reservation, { requests: stored.requests }, [], [], undefined, true)), failure };
        }
        const next: Reservation = {
          ...reservation,
          lines: applied.lines,
          updatedAt: at,
          ...(last ? { status: statusAfter(applied.lines, pending.kind) } : {}),
        };
        const audit: AuditDraft | undefined = last
          ? {
              kind: AUDIT[pending.kind],
              target: { kind: 'reservation', id: reservation.id },
              summary: `Reservation ${PAST[pending.kind]}: ${reservation.reference}`,
              changes: [],
            }
          : undefined;
        return this.slice(organizationId, stored, next, this.progressAfter(stored, pending, last), applied.writes, applied.events, audit, last);
      }
    }
  }

  /** The operation one slice further, or (after its last) gone, the request remembered. */
  private progressAfter(stored: StoredReservation, pending: PendingOperation, last: boolean): ReservationProgress {
    // As of when the request began, not when another writer finished it: remembered no longer than its key.
    if (last) return { requests: rememberRequest(stored.requests, pending.requestKey, pending.startedAt) };
    return { requests: stored.requests, pending: { ...pending, slicesDone: pending.slicesDone + 1 } };
  }

  /** A slice's plan: its stock writes, the reservation (created, or over the version read, with its before-image when it changed) and the events. */
  private slice(
    organizationId: string,
    stored: StoredReservation,
    next: Reservation,
    progress: ReservationProgress,
    stockWrites: StockWrite[],
    events: EventDraft[],
    audit: AuditDraft | undefined,
    last: boolean,
  ): Slice<Write> {
    const { ports } = this;
    const changed = next !== stored.reservation;
    const writes = [
      ...stockWrites.flatMap((write) => ports.stock.writesOf(organizationId, write)),
      ...(stored.version === 0
        ? ports.reservations.createWrites(organizationId, next, progress)
        : [
            ports.reservations.updateWrite(organizationId, next, stored.version, progress),
            ...(changed ? [ports.beforeImages.write(organizationId, stored.reservation, next.updatedAt)] : []),
          ]),
    ];
    return {
      plan: { writes, events, ...(audit ? { audit } : {}), result: next },
      after: { reservation: next, version: stored.version + 1, ...progress },
      last,
    };
  }
}

/**
 * When a change of the reservation happens: now, but always after its last change, so each
 * version of a reservation has its own `updatedAt` (its events' `occurredAt`, and the key of the
 * before-image an exact export reads: docs/exports.md "Snapshots"), whatever the clocks of the
 * writers.
 */
export function changeTime(reservation: Pick<Reservation, 'updatedAt'>, now: Date): string {
  return new Date(Math.max(now.getTime(), Date.parse(reservation.updatedAt) + 1)).toISOString();
}

/** A write condition failed: the reservation's version, or a stock record's or total's. */
export function isConflict(error: unknown): boolean {
  return error instanceof ApiError && error.code === 'customer-api.request.conflict';
}

/** The reservation as stored, or 404. */
export async function storedOrNotFound<Write>(ports: ReservationPorts<Write>, organizationId: string, id: string): Promise<StoredReservation> {
  const stored = await ports.reservations.get(organizationId, id);
  if (!stored) throw reservationNotFound();
  return stored;
}
