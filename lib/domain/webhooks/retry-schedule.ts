// STAND-IN (not committed): the webhook-send branch provides the real module.
export const RETRY_DELAYS_SECONDS: readonly number[] = [5, 300, 1800, 7200, 18000, 36000, 50400, 72000, 86400];
export function nextAttemptDelaySeconds(attempt: number, retryAfterSeconds: number | null, random: () => number): number | null {
  const base = RETRY_DELAYS_SECONDS[attempt - 1];
  if (base === undefined) return null;
  const jittered = base * (0.8 + 0.4 * random());
  return Math.max(jittered, retryAfterSeconds ?? 0);
}
