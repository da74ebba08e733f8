import type { RateLimitWindowStatus } from './types.ts';

/**
 * Fixed-window rate limiting (docs/api-guide.md "Rate limits"), pure: windows are aligned to the epoch
 * (a 60 s window starts on a whole minute), so every container agrees on the window of a
 * request without talking to the others; only the counter is shared (the `RateLimitCounter`
 * port). Each request that reaches the limiter counts, including those answered 429.
 */

export type RateLimitPolicyName = RateLimitWindowStatus['policy'];

export interface RateLimitPolicy {
  name: RateLimitPolicyName;
  /** Requests allowed per window and API key. */
  limit: number;
  windowSeconds: number;
}

/** The limits of a deployment (lib/config/rate-limits.ts reads them). */
export interface RateLimitPolicies {
  /** Every request of an API key. */
  general: RateLimitPolicy;
  /** Submission routes (`RouteDefinition.submission`), on top of the general limit. */
  submission: RateLimitPolicy;
}

/** How long a counter outlives its window before DynamoDB TTL may delete it. */
export const COUNTER_GRACE_SECONDS = 60;

/**
 * Shared per-window counters of an API key (port; lib/store implements it). The policies that
 * share a window length are counted together, in one round trip.
 */
export interface RateLimitCounter {
  /**
   * Atomically adds 1 to the count of each policy in the window of `windowSeconds` starting at
   * `windowStartEpochSeconds`, and returns the new counts (1 for the first request of the window).
   */
  increment(
    keyId: string,
    window: { windowSeconds: number; windowStartEpochSeconds: number; expiresAtEpochSeconds: number },
    policies: readonly RateLimitPolicyName[],
  ): Promise<Record<RateLimitPolicyName, number | undefined>>;
}

/** Epoch seconds at which the window holding `nowMs` starts. */
export function windowStartOf(nowMs: number, windowSeconds: number): number {
  const nowSeconds = Math.floor(nowMs / 1000);
  return nowSeconds - (((nowSeconds % windowSeconds) + windowSeconds) % windowSeconds);
}

/** Whole seconds until the window holding `nowMs` resets: rounded up, never less than 1. */
export function secondsUntilReset(nowMs: number, windowSeconds: number): number {
  const endMs = (windowStartOf(nowMs, windowSeconds) + windowSeconds) * 1000;
  return Math.max(1, Math.ceil((endMs - nowMs) / 1000));
}

/** Epoch seconds after which the counter of a window may be deleted (window end + grace). */
export function counterExpiresAt(windowStartEpochSeconds: number, windowSeconds: number): number {
  return windowStartEpochSeconds + windowSeconds + COUNTER_GRACE_SECONDS;
}

export interface WindowEvaluation {
  status: RateLimitWindowStatus;
  /** True when this request is over the limit (`count > limit`). */
  exceeded: boolean;
}

/** Where a request stands after it was counted as the `count`-th of its window. */
export function evaluateWindow(policy: RateLimitPolicy, count: number, nowMs: number): WindowEvaluation {
  return {
    status: {
      policy: policy.name,
      limit: policy.limit,
      windowSeconds: policy.windowSeconds,
      remaining: Math.max(0, policy.limit - count),
      resetSeconds: secondsUntilReset(nowMs, policy.windowSeconds),
    },
    exceeded: count > policy.limit,
  };
}

/**
 * The exceeded window that blocks longest (its `resetSeconds` is the Retry-After), or
 * undefined when the request is within every limit.
 */
export function exceededWindow(evaluations: readonly WindowEvaluation[]): RateLimitWindowStatus | undefined {
  let blocking: RateLimitWindowStatus | undefined;
  for (const { status, exceeded } of evaluations) {
    if (exceeded && (!blocking || status.resetSeconds > blocking.resetSeconds)) blocking = status;
  }
  return blocking;
}
