import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { admit, DEFAULT_FAIR_SHARE, deferralDelaySeconds, EMPTY_GATE, isCircuitOpen, release, type FairShareLimits, type GateState } from '../../../lib/domain/webhooks/fair-share.ts';

const limits: FairShareLimits = { organizationShare: 4, endpointShare: 2, openCircuitAfterTimeouts: 3, openCircuitShare: 1 };
const leaseMs = 20_000;
const now = 1_000_000;

/** Admits attempts to `endpointId` one after another until one is refused; returns the state and how many got in. */
function fill(state: GateState, endpointId: string, at = now): { state: GateState; admitted: number } {
  let admitted = 0;
  for (;;) {
    const admission = admit(state, { leaseId: `${endpointId}-${admitted}-${state.version}`, endpointId, now: at, leaseMs }, limits);
    if (!admission.admitted) return { state, admitted };
    state = admission.next;
    admitted += 1;
  }
}

describe('admit: shares', () => {
  it('gives one endpoint its share and no more, though the organization has room', () => {
    const { state, admitted } = fill(EMPTY_GATE, 'whe_a');
    expect(admitted).toBe(2);
    expect(admit(state, { leaseId: 'x', endpointId: 'whe_a', now, leaseMs }, limits)).toEqual({ admitted: false, reason: 'endpoint-share' });
  });

  it('caps the organization at its share however many endpoints it has', () => {
    let state = EMPTY_GATE;
    let admitted = 0;
    for (const endpointId of ['whe_a', 'whe_b', 'whe_c', 'whe_d']) {
      const filled = fill(state, endpointId);
      state = filled.state;
      admitted += filled.admitted;
    }
    expect(admitted).toBe(4);
    expect(admit(state, { leaseId: 'x', endpointId: 'whe_e', now, leaseMs }, limits)).toEqual({ admitted: false, reason: 'organization-share' });
  });

  it('frees a slot when a lease is released, and when a lease expires (its worker died)', () => {
    const { state } = fill(fill(EMPTY_GATE, 'whe_a').state, 'whe_b');
    const leaseOfA = Object.entries(state.leases).find(([, lease]) => lease.endpointId === 'whe_a')?.[0] ?? '';
    const released = release(state, { leaseId: leaseOfA, endpointId: 'whe_a', timedOut: false });
    expect(admit(released, { leaseId: 'y', endpointId: 'whe_a', now, leaseMs }, limits).admitted).toBe(true);
    expect(admit(state, { leaseId: 'y', endpointId: 'whe_c', now: now + leaseMs + 1, leaseMs }, limits).admitted).toBe(true);
  });

  it('never has more live leases than the organization share, nor more per endpoint than its share (any sequence of admissions and releases)', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('admit' as const), endpoint: fc.integer({ min: 0, max: 5 }), advanceMs: fc.integer({ min: 0, max: 5000 }) }),
      fc.record({ kind: fc.constant('release' as const), pick: fc.nat(), timedOut: fc.constantFrom(true, false, null) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        let state = EMPTY_GATE;
        let clock = now;
        steps.forEach((action, index) => {
          if (action.kind === 'admit') {
            clock += action.advanceMs;
            const admission = admit(state, { leaseId: `l${index}`, endpointId: `whe_${action.endpoint}`, now: clock, leaseMs }, limits);
            if (admission.admitted) state = admission.next;
          } else {
            const ids = Object.keys(state.leases);
            const leaseId = ids[action.pick % Math.max(ids.length, 1)];
            const lease = leaseId === undefined ? undefined : state.leases[leaseId];
            if (leaseId !== undefined && lease) state = release(state, { leaseId, endpointId: lease.endpointId, timedOut: action.timedOut });
          }
          const live = Object.values(state.leases).filter((lease) => lease.expiresAt > clock);
          expect(live.length).toBeLessThanOrEqual(limits.organizationShare);
          // Leases taken before a circuit opened may still be out: the bound is the endpoint's full share.
          for (const endpoint of new Set(live.map((lease) => lease.endpointId))) expect(live.filter((lease) => lease.endpointId === endpoint).length).toBeLessThanOrEqual(limits.endpointShare);
        });
      }),
    );
  });

  it('by default leaves most of the worker to the other organizations: 6 attempts of an organization, 3 of an endpoint', () => {
    expect(DEFAULT_FAIR_SHARE).toEqual({ organizationShare: 6, endpointShare: 3, openCircuitAfterTimeouts: 3, openCircuitShare: 1 });
  });
});

describe('circuit breaker', () => {
  const timedOutTimes = (count: number, state: GateState = EMPTY_GATE): GateState => {
    for (let index = 0; index < count; index += 1) state = release(state, { leaseId: `t${index}`, endpointId: 'whe_a', timedOut: true });
    return state;
  };

  it('opens after 3 consecutive timeouts: the endpoint gets 1 attempt in flight', () => {
    expect(fill(timedOutTimes(2), 'whe_a').admitted).toBe(2);
    const open = timedOutTimes(3);
    expect(isCircuitOpen(open, 'whe_a', limits)).toBe(true);
    const { state, admitted } = fill(open, 'whe_a');
    expect(admitted).toBe(1);
    expect(admit(state, { leaseId: 'x', endpointId: 'whe_a', now, leaseMs }, limits)).toEqual({ admitted: false, reason: 'open-circuit' });
  });

  it('leaves the other endpoints of the organization their share', () => {
    expect(fill(fill(timedOutTimes(5), 'whe_a').state, 'whe_b').admitted).toBe(2);
  });

  it('closes after an attempt that does not time out; an attempt never made changes nothing', () => {
    const open = timedOutTimes(4);
    expect(isCircuitOpen(release(open, { leaseId: 'n', endpointId: 'whe_a', timedOut: null }), 'whe_a', limits)).toBe(true);
    const closed = release(open, { leaseId: 'a', endpointId: 'whe_a', timedOut: false });
    expect(isCircuitOpen(closed, 'whe_a', limits)).toBe(false);
    expect(fill(closed, 'whe_a').admitted).toBe(2);
    // The count starts again: two more timeouts do not reopen it.
    expect(isCircuitOpen(timedOutTimes(2, closed), 'whe_a', limits)).toBe(false);
  });
});

describe('deferralDelaySeconds', () => {
  it('doubles from 1 s to at most 16 s, plus at most 1 s of jitter', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((deferrals) => deferralDelaySeconds(deferrals, 'organization-share', 15, () => 0))).toEqual([1, 2, 4, 8, 16, 16, 16]);
    expect(deferralDelaySeconds(0, 'endpoint-share', 15, () => 0.99)).toBe(2);
  });

  it('waits at least the attempt deadline for an endpoint whose circuit is open (its one slot frees no sooner)', () => {
    expect([0, 3, 4].map((deferrals) => deferralDelaySeconds(deferrals, 'open-circuit', 15, () => 0))).toEqual([15, 15, 16]);
  });
});
