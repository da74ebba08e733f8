import type { CounterWindow } from './auth-failures.ts';
import type { RateLimitWindowStatus } from './types.ts';

/**
 * Fixed-window rate limiting (docs/api-guide.md "Rate limits"), pure: windows are aligned to the epoch
 * (a 60 s window starts on a whole minute), so every container agrees on the window of a
 * request without talking to the others; only the counter is shared (the `RateLimitCounter`
 * port), and containers take its tokens in leased blocks (./token-leases.ts). Each request that
 * reaches the limiter takes a token of each of its policies while the window has one left.
 */

export type RateLimitPolicyName = RateLimitWindowStatus['policy'];

export interface RateLimitPolicy {
  name: RateLimitPolicyName;
  /** Requests allowed per window and API key. */
  limit: number;
  windowSeconds: number;
  /** Most tokens one container leases at once (./token-leases.ts); without it 1, which keeps the limit exact. */
  leaseBlockMax?: number;
}

/** The limits of a deployment (lib/platform/config/rate-limits.ts reads them). */
export interface RateLimitPolicies {
  /** Every request of an API key. */
  general: RateLimitPolicy;
  /** Submission routes (`RouteDefinition.submission`), on top of the general limit. */
  submission: RateLimitPolicy;
}

/** How long a counter outlives its window before DynamoDB TTL may delete it. */
export const COUNTER_GRACE_SECONDS = 60;

/** Tokens to add to one policy's count, allowed only while the count stays within `limit`. */
export interface TokenAdd {
  policy: RateLimitPolicyName;
  limit: number;
  tokens: number;
}

/**
 * Shared per-window counters of an API key (port; lib/store implements it): one item per key and
 * window, one count per policy, so the policies that share a window length move in one round trip.
 */
export interface RateLimitCounter {
  /**
   * Adds each `tokens` to its policy's count in one conditional write that applies only if every
   * count stays within its limit (`count + tokens <= limit`, a missing count being 0). Returns
   * whether it applied and the counts: after the write when it applied, as the failed condition
   * saw them when it did not.
   */
  addWithinLimits(
    keyId: string,
    window: CounterWindow,
    adds: readonly TokenAdd[],
  ): Promise<{ applied: boolean; counts: Partial<Record<RateLimitPolicyName, number>> }>;
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
