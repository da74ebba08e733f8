/** Waits `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Exponential backoff with full jitter (a uniform wait in [0, min(cap, base × 2^attempt))), so
 * that writers who collided do not collide again in step. `attempt` counts from 0.
 */
export function jitteredBackoffMs(attempt: number, baseMs: number, capMs: number): number {
  return Math.random() * Math.min(capMs, baseMs * 2 ** attempt);
}

/** Sleeps a jittered backoff (`jitteredBackoffMs`). */
export function backOff(attempt: number, baseMs: number, capMs: number): Promise<void> {
  return sleep(jitteredBackoffMs(attempt, baseMs, capMs));
}
