import type { DeliveryTask } from './ports.ts';

/**
 * The sweep-at of a pending delivery task or a running replay: when, unless a step of its
 * queue message has moved it on by then, its message counts as lost and the due-task sweep sends
 * it again (docs/webhooks.md "The due-task sweep"). The stores file a replay's new task, every
 * task waiting for a retry and every running replay under it in the due index (lib/webhooks/store/
 * webhook-task-index.ts); a live task is not filed before its first retry (its outbox item stands
 * for it until then, lib/webhooks/store/webhook-outbox-store.ts).
 */

/**
 * How long a message may take before its task or replay counts as lost: two of the delivery
 * queue's visibility timeouts (180 s), so a message that failed once and came back is not yet.
 */
export const MESSAGE_LOST_AFTER_MS = 360_000;

/**
 * When a task counts as having lost its message, or null when no message is owed (finished). The
 * claim of an attempt leaves it as it is (one index write less an attempt): a sweep that finds the
 * attempt under way sends a message the claim refuses, which comes back once the attempt must
 * have ended (`STALE_ATTEMPT_MS`) and settles it as interrupted if its worker died.
 */
export function taskSweepAt(task: Pick<DeliveryTask, 'status' | 'nextAttemptAt'>, nowMs: number): number | null {
  if (task.status !== 'pending') return null;
  if (task.nextAttemptAt !== null) return Date.parse(task.nextAttemptAt) + MESSAGE_LOST_AFTER_MS;
  return nowMs + MESSAGE_LOST_AFTER_MS;
}

/** When a running replay's page message counts as lost (from its last step, or when it waits, from the end of the wait). */
export function replaySweepAt(fromMs: number): number {
  return fromMs + MESSAGE_LOST_AFTER_MS;
}
