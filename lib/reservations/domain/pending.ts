import { IDEMPOTENCY_RETENTION_SECONDS } from '../../platform/write/idempotency.ts';
import type { ShortLine } from '../../stock/index.ts';
import type { RememberedRequest } from './ports.ts';
import type { ReservationLine } from './reservation.ts';

/**
 * An operation on a reservation that takes more than one transaction (docs/inventory.md
 * "Reservations and available stock"), stored beside the reservation with every slice that
 * commits: each slice writes the reservation over the version it read with `slicesDone` one
 * higher, so a crash or a second writer resumes at the slice reached, and every slice applies
 * once. The last slice removes it.
 */

export type PendingKind = 'create' | 'release' | 'fulfil' | 'expire' | 'unwind';

/** A line's part of a release, a fulfilment or an expiry. */
export interface PendingAmount {
  lineId: string;
  quantity: number;
}

/** A lot a create holds, and the request line it holds it for (what a 409 names when a race took it). */
export interface PendingHold {
  line: ReservationLine;
  requestLine: number;
  /** What the request line asked for in all its lots. */
  requested: number;
}

interface PendingBase {
  /** Tells this operation from a later one on the same reservation. */
  id: string;
  /** SHA-256 of the Idempotency-Key of the request that started it; null for the expiry sweep. */
  requestKey: string | null;
  /** When its first slice committed: the expiry sweep finishes it when nobody did soon after. */
  startedAt: string;
  slicesDone: number;
}

export type PendingOperation =
  | (PendingBase & { kind: 'create'; holds: PendingHold[] })
  | (PendingBase & { kind: 'release' | 'fulfil' | 'expire'; amounts: PendingAmount[] })
  /** A create that a race left short half way: what it held is let go of, slice by slice, then the reservation is deleted. */
  | (PendingBase & { kind: 'unwind'; lineIds: string[]; short: ShortLine[] });

/** How many steps (lots) an operation of this kind has in all. */
export function stepsOf(pending: PendingOperation): number {
  switch (pending.kind) {
    case 'create':
      return pending.holds.length;
    case 'unwind':
      return pending.lineIds.length;
    default:
      return pending.amounts.length;
  }
}

/** The recent requests a reservation remembers having finished (so a retry is answered, not applied again). */
export const REMEMBERED_REQUESTS = 20;

/**
 * Whether `requestKey` is of a request the reservation remembers as of `now`. A request is
 * remembered as long as its Idempotency-Key is (docs/api-guide.md "Idempotency"), from when its
 * command ran, which is at or after the key was claimed: a key reused once its record expired is a
 * new request, which runs, and is not answered as the old one with nothing done.
 */
export function remembers(requests: readonly RememberedRequest[], requestKey: string | null, now: Date): boolean {
  return requestKey !== null && requests.some((entry) => entry.key === requestKey && isKept(entry, now.getTime()));
}

/** `requests` with `requestKey` added as of `at` (those forgotten as of then dropped, the oldest past REMEMBERED_REQUESTS). */
export function rememberRequest(requests: readonly RememberedRequest[], requestKey: string | null, at: string): RememberedRequest[] {
  const kept = requests.filter((entry) => isKept(entry, Date.parse(at)));
  if (requestKey === null || kept.some((entry) => entry.key === requestKey)) return kept;
  return [...kept, { key: requestKey, at }].slice(-REMEMBERED_REQUESTS);
}

/** The idempotency record's own rule (lib/platform/write/idempotency.ts `decideOnExisting`). */
const isKept = (entry: RememberedRequest, now: number) => Date.parse(entry.at) + IDEMPOTENCY_RETENTION_SECONDS * 1000 > now;

/** How long a pending operation is left to the request that started it before the expiry sweep finishes it. */
export const PENDING_GRACE_MS = 2 * 60 * 1000;

/** When the expiry sweep should look at a reservation: at its expiry, or sooner when an operation is pending. */
export function sweepDueAt(expiresAt: string, pending: PendingOperation | undefined): string {
  if (!pending) return expiresAt;
  const finishBy = new Date(Date.parse(pending.startedAt) + PENDING_GRACE_MS).toISOString();
  return finishBy < expiresAt ? finishBy : expiresAt;
}
