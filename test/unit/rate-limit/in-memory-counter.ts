import type { RateLimitCounter, RateLimitPolicyName } from '../../../lib/domain/rate-limit/fixed-window.ts';

/** Test double of the rate-limits table: counts per key, policy and window, records each call. */
export class InMemoryCounter implements RateLimitCounter {
  readonly counts = new Map<string, number>();
  readonly calls: Array<{ keyId: string; policies: RateLimitPolicyName[]; windowStart: number; expiresAt: number }> = [];

  async increment(
    keyId: string,
    window: { windowSeconds: number; windowStartEpochSeconds: number; expiresAtEpochSeconds: number },
    policies: readonly RateLimitPolicyName[],
  ): Promise<Record<RateLimitPolicyName, number | undefined>> {
    this.calls.push({ keyId, policies: [...policies], windowStart: window.windowStartEpochSeconds, expiresAt: window.expiresAtEpochSeconds });
    const counts: Record<RateLimitPolicyName, number | undefined> = { general: undefined, submission: undefined };
    for (const policy of policies) {
      const id = `${keyId}#${policy}#${window.windowStartEpochSeconds}`;
      const count = (this.counts.get(id) ?? 0) + 1;
      this.counts.set(id, count);
      counts[policy] = count;
    }
    return counts;
  }

  /** Sets a window's count as if `count` requests had already been made. */
  preload(keyId: string, policy: RateLimitPolicyName, windowStart: number, count: number): void {
    this.counts.set(`${keyId}#${policy}#${windowStart}`, count);
  }
}
