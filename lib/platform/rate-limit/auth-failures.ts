import { counterExpiresAt, secondsUntilReset, windowStartOf } from './fixed-window.ts';

/**
 * A per-source limit on failed authentications (docs/api-guide.md "Failed authentications"):
 * every well-formed key that the keys table does not accept (unknown, revoked, expired) counts
 * against its source IP address in a fixed window; once the count is over the limit, that
 * source's failed authentications are answered 429 until the window ends. A valid key is never
 * refused by it: the key is always checked first, and only a failed check consults the limit.
 *
 * Each container remembers the sources it saw go over the limit until their window ends, so an
 * ongoing flood costs one counter update per source, window and container, not one per request.
 */

/** The window of one counter item (the shape `RateLimitCounter` uses too). */
export interface CounterWindow {
  windowSeconds: number;
  windowStartEpochSeconds: number;
  expiresAtEpochSeconds: number;
}

/** Shared failed-authentication counters (port; lib/platform/dynamo/rate-limit-store.ts implements it). */
export interface AuthFailureCounter {
  /** Atomically adds 1 to `source`'s count of the window and returns the new count. */
  countAuthFailure(source: string, window: CounterWindow): Promise<number>;
}

export interface AuthFailurePolicy {
  /** Failed authentications allowed per window and source address. */
  limit: number;
  windowSeconds: number;
}

export interface AuthFailureVerdict {
  /** True when the source is over the limit: answer 429 instead of 401. */
  exceeded: boolean;
  limit: number;
  windowSeconds: number;
  /** Whole seconds until the window resets (≥ 1): the Retry-After of a 429. */
  retryAfterSeconds: number;
}

/** How many over-the-limit sources one container remembers (oldest forgotten first). */
const MAX_REMEMBERED_SOURCES = 10_000;

export class AuthFailureLimiter {
  /** Source → epoch ms at which its over-the-limit window ends, in insertion (≈ time) order. */
  private readonly overLimit = new Map<string, number>();

  constructor(
    private readonly counter: AuthFailureCounter,
    readonly policy: AuthFailurePolicy,
    private readonly maxRemembered = MAX_REMEMBERED_SOURCES,
  ) {}

  /** Counts one failed authentication of `source` (unless it is already known to be over the limit). */
  async recordFailure(source: string, nowMs: number): Promise<AuthFailureVerdict> {
    const { limit, windowSeconds } = this.policy;
    const verdict = (exceeded: boolean): AuthFailureVerdict => ({ exceeded, limit, windowSeconds, retryAfterSeconds: secondsUntilReset(nowMs, windowSeconds) });
    if (this.isOverLimit(source, nowMs)) return verdict(true);
    const windowStartEpochSeconds = windowStartOf(nowMs, windowSeconds);
    const count = await this.counter.countAuthFailure(source, {
      windowSeconds,
      windowStartEpochSeconds,
      expiresAtEpochSeconds: counterExpiresAt(windowStartEpochSeconds, windowSeconds),
    });
    if (count <= limit) return verdict(false);
    this.remember(source, (windowStartEpochSeconds + windowSeconds) * 1000, nowMs);
    return verdict(true);
  }

  /** Whether this container knows `source` to be over the limit in the window holding `nowMs` (no storage read). */
  isOverLimit(source: string, nowMs: number): boolean {
    const until = this.overLimit.get(source);
    if (until === undefined) return false;
    if (nowMs < until) return true;
    this.overLimit.delete(source);
    return false;
  }

  private remember(source: string, untilMs: number, nowMs: number): void {
    this.overLimit.delete(source);
    this.overLimit.set(source, untilMs);
    // Windows end in insertion order (all have one length): drop the ended ones, then the oldest beyond the bound.
    for (const [oldest, oldestUntil] of this.overLimit) {
      if (oldestUntil > nowMs && this.overLimit.size <= this.maxRemembered) break;
      this.overLimit.delete(oldest);
    }
  }
}
