import { STALE_ATTEMPT_MS } from './attempt-limits.ts';
import type { AttemptUnderWay, DeliveryAttempt, DeliveryTask } from './ports.ts';

/**
 * A live delivery's first attempt is ended by its log entry alone (docs/webhooks.md "Delivery"):
 * its claimant writes no task end, which saves a write unit on most deliveries. The task item then
 * still holds the claim, and whoever reads it (the store's reads, the outbox sweep, a copy of the
 * message) takes the attempt's final entry for the task's end.
 */

/** Clocks of two workers may differ by this much: a claimant that ends later than the stale time less this writes the task's end as before. */
const CLOCK_MARGIN_MS = 30_000;

/**
 * Whether the claimant's final log entry is the task's end, with no task write: a live task's
 * first attempt (never filed in the due index, so nothing there to take out) that ended before
 * any successor could have taken it for interrupted (STALE_ATTEMPT_MS after the claim).
 */
export function endsWithLogEntry(task: Pick<DeliveryTask, 'origin'>, attempt: AttemptUnderWay, nowMs: number): boolean {
  return task.origin === 'live' && attempt.number === 1 && nowMs - Date.parse(attempt.startedAt) < STALE_ATTEMPT_MS - CLOCK_MARGIN_MS;
}

/**
 * The task as its attempt under way's log entry ends it: succeeded, or failed with no attempt
 * after. Any other entry (none, `pending`, a failure that scheduled a retry whose task write was
 * lost with its worker) leaves the task as stored, for the interrupted settle to move on.
 */
export function taskAsRecorded(task: DeliveryTask, entry: DeliveryAttempt | undefined): DeliveryTask {
  if (task.status !== 'pending' || !task.inFlight || !entry || entry.id !== task.inFlight.attemptId) return task;
  if (entry.status === 'succeeded') return { ...task, status: 'succeeded', nextAttemptAt: null, inFlight: null };
  if (entry.status === 'failed' && entry.nextAttemptAt === null) return { ...task, status: 'failed', nextAttemptAt: null, inFlight: null };
  return task;
}
