/**
 * When a failed webhook delivery is tried again (docs/webhooks.md): the Standard
 * Webhooks schedule, about three days in all, as Stripe's. Each wait is jittered by ±20 % so that
 * the retries of many events that failed together (an endpoint that was down) do not all arrive
 * at the same instant when it comes back.
 */

/** The wait after attempt n fails is RETRY_DELAYS_SECONDS[n - 1]; after attempt 10 there is none. */
export const RETRY_DELAYS_SECONDS: readonly number[] = Object.freeze([
  5, // 5 s
  5 * 60, // 5 min
  30 * 60, // 30 min
  2 * 3600, // 2 h
  5 * 3600, // 5 h
  10 * 3600, // 10 h
  14 * 3600, // 14 h
  20 * 3600, // 20 h
  24 * 3600, // 24 h
]);

/**
 * The longest a receiver's `Retry-After` can make the next attempt wait: the schedule's longest
 * wait (docs/webhooks.md "Retry waits"). Beyond it the value is no plan a schedule of about three
 * days could honour, and a huge one would not even make a valid due date.
 */
export const MAX_RETRY_AFTER_SECONDS = Math.max(...RETRY_DELAYS_SECONDS);

/** An endpoint with no success through this long a run of failures is disabled (`failing`). */
export const DISABLE_AFTER_FAILING_SECONDS = 5 * 24 * 3600;

/** ±20 %: the jittered wait lies in [0.8 × delay, 1.2 × delay). */
const JITTER = 0.2;

/**
 * The wait in whole seconds before the attempt after `attempt` (1-based, the one that just
 * failed), or null when the schedule is exhausted and the event is `failed` for the endpoint.
 * `random` returns a value in [0, 1) (Math.random in production, a fixed source in tests).
 * A `Retry-After` the endpoint sent (on 429, 502 or 504) is a lower bound, capped at
 * MAX_RETRY_AFTER_SECONDS: it is never cut short by the jitter, though the schedule may wait longer.
 */
export function nextAttemptDelaySeconds(attempt: number, retryAfterSeconds: number | null, random: () => number): number | null {
  if (!Number.isInteger(attempt) || attempt < 1) throw new RangeError(`attempt must be a whole number ≥ 1, not ${attempt}`);
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return null;
  const factor = 1 - JITTER + 2 * JITTER * Math.min(Math.max(random(), 0), 1);
  const jittered = Math.max(1, Math.round(base * factor));
  const floor = retryAfterSeconds !== null && retryAfterSeconds > 0 ? Math.min(Math.ceil(retryAfterSeconds), MAX_RETRY_AFTER_SECONDS) : 0;
  return Math.max(jittered, floor);
}
