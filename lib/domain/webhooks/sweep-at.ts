import { STALE_ATTEMPT_MS } from './attempt-limits.ts';
import type { DeliveryTask } from './ports.ts';

/**
 * The sweep-at of a pending delivery task or a running replay: when, unless a step of its
 * queue message has moved it on by then, its message counts as lost and the due-task sweep sends
 * it again (docs/webhooks.md "The due-task sweep"). The stores file every task and replay under
 * it in the due index (lib/store/webhook-task-index.ts).
 */

/**
 * How long a message may take before its task or replay counts as lost: two of the delivery
 * queue's visibility timeouts (180 s), so a message that failed once and came back is not yet.
 */
export const MESSAGE_LOST_AFTER_MS = 360_000;

/** When a task counts as having lost its message, or null when no message is owed (finished). */
export function taskSweepAt(task: Pick<DeliveryTask, 'status' | 'inFlight' | 'nextAttemptAt'>, nowMs: number): number | null {
  if (task.status !== 'pending') return null;
  // A claimed attempt: its worker's message settles it once it must have ended.
  if (task.inFlight) return Date.parse(task.inFlight.startedAt) + STALE_ATTEMPT_MS + MESSAGE_LOST_AFTER_MS;
  if (task.nextAttemptAt !== null) return Date.parse(task.nextAttemptAt) + MESSAGE_LOST_AFTER_MS;
  return nowMs + MESSAGE_LOST_AFTER_MS;
}

/** When a running replay's page message counts as lost (from its last step, or when it waits, from the end of the wait). */
export function replaySweepAt(fromMs: number): number {
  return fromMs + MESSAGE_LOST_AFTER_MS;
}
