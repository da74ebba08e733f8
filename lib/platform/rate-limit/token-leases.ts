import type { CounterWindow } from './auth-failures.ts';
import type { RateLimitCounter, RateLimitPolicy, RateLimitPolicyName, TokenAdd } from './fixed-window.ts';

/**
 * Token leases (docs/api-guide.md "Rate limits"): instead of one counter write per request, a
 * container leases a block of tokens from the key's shared window counter in one conditional
 * write and spends them locally. The counter counts leased tokens and never passes the limit,
 * so a key is never allowed more than its limit; tokens still unspent in other containers are
 * what can make a key be refused a little early (at most `leaseBlockMax - 1` per other container).
 *
 * A policy's block doubles while this container spends each block within `BUSY_MS` of leasing
 * it (1, 2, 4 … up to the policy's `leaseBlockMax`), halves when it did not, and starts at 1 in
 * every window. A policy without `leaseBlockMax` leases one token per request: exact.
 */

/** A block spent within this long of its lease counts as busy: the next block doubles. */
export const BUSY_MS = 5_000;

/** How many key windows one container remembers (least recently used forgotten first). */
const MAX_WINDOWS = 1_000;

/** What a lease got for one policy. */
export interface LeaseGrant {
  /** Tokens leased (0 when the window is spent). */
  granted: number;
  /** The policy's count of leased tokens in the window after the lease (before it, when nothing was granted). */
  count: number;
}

/**
 * Leases `wanted` tokens per policy (each at least 1 and at most its limit) with conditional adds:
 * the whole block when every count stays within its limit, otherwise exactly what the counts the
 * failed condition returned leave (nothing for a spent window). Terminates: a failed add means some
 * count grew past `limit - tokens`, so that policy's next request is strictly smaller or dropped.
 */
export async function leaseTokens(
  wanted: readonly TokenAdd[],
  add: (adds: readonly TokenAdd[]) => ReturnType<RateLimitCounter['addWithinLimits']>,
): Promise<Map<RateLimitPolicyName, LeaseGrant>> {
  const grants = new Map<RateLimitPolicyName, LeaseGrant>();
  let attempt = wanted.map((request) => ({ ...request, tokens: Math.min(request.tokens, request.limit) }));
  while (attempt.length > 0) {
    const { applied, counts } = await add(attempt);
    if (applied) {
      for (const { policy, tokens } of attempt) grants.set(policy, { granted: tokens, count: counts[policy] ?? tokens });
      break;
    }
    const next: TokenAdd[] = [];
    for (const request of attempt) {
      const count = counts[request.policy] ?? 0;
      const left = request.limit - count;
      if (left <= 0) grants.set(request.policy, { granted: 0, count });
      else next.push({ ...request, tokens: Math.min(request.tokens, left) });
    }
    attempt = next;
  }
  return grants;
}

/** Where one request stands in one policy's window, as this container sees it. */
export interface LeaseOutcome {
  admitted: boolean;
  /**
   * This request's place in the window's count: the tokens leased for the key minus those this
   * container still holds (so `limit - position` is what `RateLimit` reports remaining); `limit + 1`
   * for a refused request.
   */
  position: number;
}

interface PolicyLease {
  /** Leased tokens this container has not spent yet. */
  tokens: number;
  /** The shared count after this container's last lease. */
  leased: number;
  /** The window is known to be spent: the counter reached the limit. */
  spent: boolean;
  lastBlock: number;
  lastLeaseMs: number | undefined;
}

interface WindowLeases {
  policies: Map<RateLimitPolicyName, PolicyLease>;
  /** The one lease in flight for this key window: concurrent requests wait for it instead of leasing too. */
  pending: Promise<void> | undefined;
}

/**
 * One container's leases, keyed by API key and window. Built once per container (module scope of
 * the composition root), so blocks outlive requests; bounded to `maxWindows` entries.
 */
export class TokenLeases {
  private readonly windows = new Map<string, WindowLeases>();

  constructor(
    private readonly counter: RateLimitCounter,
    private readonly maxWindows = MAX_WINDOWS,
  ) {}

  /** Takes one token of each policy (all of one window length) for a request at `nowMs`. */
  async acquire(keyId: string, window: CounterWindow, policies: readonly RateLimitPolicy[], nowMs: number): Promise<LeaseOutcome[]> {
    const leases = this.windowOf(`${keyId}#${window.windowSeconds}#${window.windowStartEpochSeconds}`);
    const stateOf = (policy: RateLimitPolicy) => policyLease(leases, policy.name);
    for (;;) {
      const needed = policies.filter((policy) => stateOf(policy).tokens === 0 && !stateOf(policy).spent);
      if (needed.length === 0) break;
      if (!leases.pending) {
        leases.pending = this.lease(keyId, window, leases, needed, nowMs).finally(() => {
          leases.pending = undefined;
        });
      }
      await leases.pending;
    }
    // Synchronous from the check above: no other request can take these tokens in between.
    return policies.map((policy) => {
      const state = stateOf(policy);
      if (state.tokens === 0) return { admitted: false, position: policy.limit + 1 };
      state.tokens -= 1;
      return { admitted: true, position: state.leased - state.tokens };
    });
  }

  /** Unspent tokens this container holds for a key window (what a measurement needs to know it will not lease). */
  heldTokens(keyId: string, window: CounterWindow, policy: RateLimitPolicyName): number {
    return this.windows.get(`${keyId}#${window.windowSeconds}#${window.windowStartEpochSeconds}`)?.policies.get(policy)?.tokens ?? 0;
  }

  private async lease(keyId: string, window: CounterWindow, leases: WindowLeases, needed: readonly RateLimitPolicy[], nowMs: number): Promise<void> {
    const wanted = needed.map((policy) => ({ policy: policy.name, limit: policy.limit, tokens: nextBlock(policyLease(leases, policy.name), policy, nowMs) }));
    const grants = await leaseTokens(wanted, (adds) => this.counter.addWithinLimits(keyId, window, adds));
    for (const { policy, tokens } of wanted) {
      const state = policyLease(leases, policy);
      const grant = grants.get(policy);
      if (!grant) throw new Error(`The lease returned nothing for ${policy}`);
      state.lastBlock = tokens;
      state.lastLeaseMs = nowMs;
      state.leased = Math.max(state.leased, grant.count);
      if (grant.granted === 0) state.spent = true;
      state.tokens += grant.granted;
    }
  }

  private windowOf(id: string): WindowLeases {
    const found = this.windows.get(id);
    if (found) {
      this.windows.delete(id);
      this.windows.set(id, found);
      return found;
    }
    const created: WindowLeases = { policies: new Map(), pending: undefined };
    this.windows.set(id, created);
    for (const oldest of this.windows.keys()) {
      if (this.windows.size <= this.maxWindows) break;
      this.windows.delete(oldest);
    }
    return created;
  }
}

function policyLease(leases: WindowLeases, policy: RateLimitPolicyName): PolicyLease {
  let state = leases.policies.get(policy);
  if (!state) {
    state = { tokens: 0, leased: 0, spent: false, lastBlock: 0, lastLeaseMs: undefined };
    leases.policies.set(policy, state);
  }
  return state;
}

/** The block size of the next lease: doubled when the last block went within BUSY_MS, halved otherwise. */
export function nextBlock(state: Pick<PolicyLease, 'lastBlock' | 'lastLeaseMs'>, policy: Pick<RateLimitPolicy, 'leaseBlockMax'>, nowMs: number): number {
  const max = policy.leaseBlockMax ?? 1;
  if (state.lastLeaseMs === undefined) return 1;
  const busy = nowMs - state.lastLeaseMs < BUSY_MS;
  return Math.max(1, Math.min(max, busy ? state.lastBlock * 2 : Math.floor(state.lastBlock / 2)));
}
