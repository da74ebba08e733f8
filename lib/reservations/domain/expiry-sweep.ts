import { ApiError } from '../../platform/core/errors.ts';

/**
 * The reservation expiry sweep, every minute (docs/inventory.md "Reservations and available
 * stock"): each active reservation whose `expiresAt` has passed releases what it has left and
 * becomes `expired`, one transaction each (the release, the reservation over the version read,
 * `stock.changed`, the audit entry), or in slices when it holds more than one transaction
 * settles. It also finishes an operation a request left in progress on a reservation (its
 * process died) a while after it began. A sweep that dies half way leaves the rest due for the
 * next one; one that finds a reservation already settled (by a release, a fulfilment or another
 * sweep) leaves it: nothing is released twice.
 */

export interface DueReservation {
  organizationId: string;
  id: string;
  /** Absent: the entry is due for its expiry (callers from before operations in slices). */
  expiresAt?: string;
}

export interface ExpirySweepPorts {
  /** Active reservations whose `expiresAt` is before `now`, at most `limit`, the earliest first. */
  due(now: Date, limit: number): Promise<DueReservation[]>;
  /** Releases what the reservation has left and marks it expired; refuses (not-active) one settled meanwhile. */
  expire(reservation: DueReservation): Promise<void>;
  /** Finishes the operation in progress on a reservation listed before its expiry for that. */
  finishPending?(reservation: DueReservation): Promise<void>;
  onError(reservation: DueReservation, error: unknown): void;
  clock?: () => Date;
  /** Stop taking new pages past this time (the invocation's budget). */
  deadline?: number;
}

/** Reservations a page of the sweep takes. */
export const EXPIRY_PAGE = 100;

export async function sweepExpiredReservations(ports: ExpirySweepPorts): Promise<{ expired: number; finished: number; skipped: number; errors: number }> {
  const counts = { expired: 0, finished: 0, skipped: 0, errors: 0 };
  const seen = new Set<string>();
  for (;;) {
    const now = ports.clock?.() ?? new Date();
    if (ports.deadline !== undefined && now.getTime() >= ports.deadline) return counts;
    // An entry that failed stays due: it is tried by the next sweep, not again by this one.
    const page = (await ports.due(now, EXPIRY_PAGE)).filter((entry) => !seen.has(`${entry.organizationId}#${entry.id}`));
    if (page.length === 0) return counts;
    for (const entry of page) {
      seen.add(`${entry.organizationId}#${entry.id}`);
      try {
        if (entry.expiresAt !== undefined && entry.expiresAt > now.toISOString()) {
          await ports.finishPending?.(entry);
          counts.finished += 1;
          continue;
        }
        await ports.expire(entry);
        counts.expired += 1;
      } catch (error) {
        if (error instanceof ApiError && (error.code === 'customer-api.reservations.not-active' || error.code === 'customer-api.reservations.not-found')) {
          counts.skipped += 1;
          continue;
        }
        counts.errors += 1;
        ports.onError(entry, error);
      }
    }
  }
}
