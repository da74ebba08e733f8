import type { RateLimitCounter, RateLimitPolicyName } from '../../../lib/domain/rate-limit/fixed-window.ts';

/** Test double of the rate-limits table: counts per key, policy and window, records each call. */
export class InMemoryCounter implements RateLimitCounter {
  readonly counts = new Map<string, number>();
  readonly calls: Array<{ keyId: string; policy: RateLimitPolicyName; windowStart: number; expiresAt: number }> = [];

  async increment(keyId: string, policy: RateLimitPolicyName, windowStart: number, expiresAt: number): Promise<number> {
    this.calls.push({ keyId, policy, windowStart, expiresAt });
    const id = `${keyId}#${policy}#${windowStart}`;
    const count = (this.counts.get(id) ?? 0) + 1;
    this.counts.set(id, count);
    return count;
  }

  /** Sets a window's count as if `count` requests had already been made. */
  preload(keyId: string, policy: RateLimitPolicyName, windowStart: number, count: number): void {
    this.counts.set(`${keyId}#${policy}#${windowStart}`, count);
  }
}
