import type { CounterWindow } from '../../../lib/platform/rate-limit/auth-failures.ts';
import type { RateLimitCounter, RateLimitPolicyName, TokenAdd } from '../../../lib/platform/rate-limit/fixed-window.ts';

/**
 * Test double (and model) of the rate-limits table: counts per key, policy and window, with the
 * store's condition semantics — all adds of a call apply together, only if every count stays
 * within its limit; a failed call changes nothing and returns the counts it saw. Records each call.
 */
export class InMemoryCounter implements RateLimitCounter {
  readonly counts = new Map<string, number>();
  readonly calls: Array<{
    keyId: string;
    adds: Array<{ policy: RateLimitPolicyName; tokens: number }>;
    windowStart: number;
    expiresAt: number;
    applied: boolean;
  }> = [];

  async addWithinLimits(
    keyId: string,
    window: CounterWindow,
    adds: readonly TokenAdd[],
  ): Promise<{ applied: boolean; counts: Partial<Record<RateLimitPolicyName, number>> }> {
    const id = (policy: RateLimitPolicyName) => `${keyId}#${policy}#${window.windowStartEpochSeconds}`;
    const before = Object.fromEntries(adds.filter((add) => this.counts.has(id(add.policy))).map((add) => [add.policy, this.counts.get(id(add.policy)) ?? 0]));
    const applied = adds.every((add) => (this.counts.get(id(add.policy)) ?? 0) + add.tokens <= add.limit);
    this.calls.push({
      keyId,
      adds: adds.map(({ policy, tokens }) => ({ policy, tokens })),
      windowStart: window.windowStartEpochSeconds,
      expiresAt: window.expiresAtEpochSeconds,
      applied,
    });
    if (!applied) return { applied, counts: before };
    for (const add of adds) this.counts.set(id(add.policy), (this.counts.get(id(add.policy)) ?? 0) + add.tokens);
    return { applied, counts: Object.fromEntries(adds.map((add) => [add.policy, this.counts.get(id(add.policy)) ?? 0])) };
  }

  /** Sets a window's count as if `count` tokens had already been leased. */
  preload(keyId: string, policy: RateLimitPolicyName, windowStart: number, count: number): void {
    this.counts.set(`${keyId}#${policy}#${windowStart}`, count);
  }

  /** The count of a window (0 before its first lease). */
  countOf(keyId: string, policy: RateLimitPolicyName, windowStart: number): number {
    return this.counts.get(`${keyId}#${policy}#${windowStart}`) ?? 0;
  }
}
