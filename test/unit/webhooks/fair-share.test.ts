import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  admit,
  BURST_PER_ANSWERED_ATTEMPT,
  DEFAULT_FAIR_SHARE,
  deferralDelaySeconds,
  EMPTY_GATE,
  endpointOf,
  fairSplit,
  isCircuitOpen,
  isYoungAttempt,
  mayWaitForSlot,
  release,
  waitsForWorker,
  WAITED_FOR_WORKER_MS,
  type FairShareLimits,
  type GateState,
} from '../../../lib/webhooks/domain/fair-share.ts';
import { WORKERS, type QueueWorkerDefinition } from '../../../lib/app/workers.ts';

/**
 * The admission rule of the fair-share gate (docs/webhooks.md "Fairness"): base shares that never
 * wait, bursts beyond them earned by attempts that end, held to a fair split while others wait,
 * and the circuit breaker.
 */

const limits: FairShareLimits = { organizationShare: 6, endpointShare: 3, capacity: 200, openCircuitAfterTimeouts: 3, openCircuitShare: 1 };

/**
 * Admits attempts to `endpointId` one after another until one is refused, or the worker runs no
 * more (it never holds more than `capacity` messages); returns the state, how many got in and why
 * the next did not.
 */
function fill(state: GateState, endpointId: string, othersWaiting = 0): { state: GateState; admitted: number; refused: string } {
  let admitted = 0;
  for (;;) {
    if (state.organization.inFlight >= limits.capacity) return { state, admitted, refused: 'worker full' };
    const admission = admit(state, endpointId, othersWaiting, limits);
    if (!admission.admitted) return { state, admitted, refused: admission.reason };
    state = admission.next;
    admitted += 1;
  }
}

/** Ends every attempt in flight to the endpoint, each the same way. */
function endAll(state: GateState, endpointId: string, timedOut: boolean | null): GateState {
  for (let count = endpointOf(state, endpointId).inFlight; count > 0; count -= 1) state = release(state, endpointId, timedOut);
  return state;
}

/** Rounds of "start all it may, then they all answer" until the tenant holds `target` attempts; the rounds taken (Infinity if it never does within 20). */
function roundsToReach(target: number, endpointIds: string[], start: GateState = EMPTY_GATE): { rounds: number; state: GateState } {
  let state = start;
  for (let round = 1; round <= 20; round += 1) {
    for (const endpointId of endpointIds) state = fill(state, endpointId).state;
    if (state.organization.inFlight >= target) return { rounds: round, state };
    for (const endpointId of endpointIds) state = endAll(state, endpointId, false);
  }
  return { rounds: Number.POSITIVE_INFINITY, state };
}

describe('base shares: what a tenant gets before any of its attempts has ended', () => {
  it('gives one endpoint its 3 and no more, and the organization 6 however many endpoints it has', () => {
    const one = fill(EMPTY_GATE, 'whe_a');
    expect([one.admitted, one.refused]).toEqual([3, 'endpoint-share']);

    let state = EMPTY_GATE;
    for (const endpointId of ['whe_a', 'whe_b', 'whe_c']) state = fill(state, endpointId).state;
    expect(state.organization.inFlight).toBe(6);
    expect(admit(state, 'whe_d', 0, limits)).toEqual({ admitted: false, reason: 'organization-share' });
  });

  it('frees a slot when an attempt is given back, whether or not one was made', () => {
    const { state } = fill(EMPTY_GATE, 'whe_a');
    expect(admit(release(state, 'whe_a', null), 'whe_a', 0, limits).admitted).toBe(true);
  });

  it('beyond a base share only with credit (never beyond it), never beyond the fair split while others wait, one per open circuit (any sequence)', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('admit' as const), endpoint: fc.integer({ min: 0, max: 5 }), othersWaiting: fc.integer({ min: 0, max: 3 }) }),
      fc.record({ kind: fc.constant('release' as const), endpoint: fc.integer({ min: 0, max: 5 }), timedOut: fc.constantFrom(true, false, null) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 400 }), (steps) => {
        let state = EMPTY_GATE;
        for (const action of steps) {
          const endpointId = `whe_${action.endpoint}`;
          if (action.kind === 'admit') {
            const before = state;
            const admission = admit(state, endpointId, action.othersWaiting, limits);
            if (!admission.admitted) continue;
            state = admission.next;
            const endpoint = endpointOf(before, endpointId);
            // Admitted beyond a base share only with credit, never beyond the fair split, one at a time once the circuit is open.
            if (before.organization.inFlight >= limits.organizationShare) {
              expect(before.organization.credit).toBeGreaterThan(0);
              expect(endpoint.timeouts).toBe(0);
              expect(before.organization.inFlight).toBeLessThan(fairSplit(action.othersWaiting, limits));
            }
            expect(before.organization.inFlight).toBeLessThan(limits.organizationShare + BURST_PER_ANSWERED_ATTEMPT * before.organization.credit);
            if (endpoint.inFlight >= limits.endpointShare) expect(endpoint.credit).toBeGreaterThan(0);
            expect(endpoint.inFlight).toBeLessThan(limits.endpointShare + BURST_PER_ANSWERED_ATTEMPT * endpoint.credit);
            if (isCircuitOpen(before, endpointId, limits)) expect(endpoint.inFlight).toBeLessThan(limits.openCircuitShare);
          } else if (endpointOf(state, endpointId).inFlight > 0) {
            state = release(state, endpointId, action.timedOut);
          }
        }
      }),
    );
  });

  it('by default: 6 attempts of an organization, 3 of an endpoint, and a burst up to the whole delivery worker (20 batches of 10)', () => {
    const worker = WORKERS.find((candidate): candidate is QueueWorkerDefinition => candidate.id === 'deliverWebhooks');
    expect(DEFAULT_FAIR_SHARE).toEqual({
      organizationShare: 6,
      endpointShare: 3,
      capacity: (worker?.batchSize ?? 0) * (worker?.maxConcurrency ?? 0),
      openCircuitAfterTimeouts: 3,
      openCircuitShare: 1,
    });
    expect(DEFAULT_FAIR_SHARE.capacity).toBe(200);
  });
});

describe('work-conserving: bursts beyond the base share', () => {
  it('a lone tenant whose attempts end grows to the whole worker within 8 round trips, one endpoint or three', () => {
    const one = roundsToReach(limits.capacity, ['whe_a']);
    expect(one.rounds).toBeLessThanOrEqual(8);
    expect(one.state.organization.inFlight).toBe(limits.capacity);
    // The gate would admit more: only the worker, which runs no more, bounds a tenant nobody waits for.
    expect(admit(one.state, 'whe_a', 0, limits).admitted).toBe(true);

    const three = roundsToReach(limits.capacity, ['whe_a', 'whe_b', 'whe_c']);
    expect(three.rounds).toBeLessThanOrEqual(7);
  });

  it('each attempt that ends earns two more in flight: beyond the base share a tenant is refused only until its next attempts end (burst-share)', () => {
    let { state } = fill(EMPTY_GATE, 'whe_a');
    state = endAll(state, 'whe_a', false);
    // 3 answered: the endpoint may have 3 + 2 × 3 in flight.
    const second = fill(state, 'whe_a');
    expect(BURST_PER_ANSWERED_ATTEMPT).toBe(2);
    expect([second.admitted, second.refused]).toEqual([9, 'burst-share']);
  });

  it('keeps the idle capacity for a tenant whose neighbours are present but not waiting', () => {
    const { state: busy } = roundsToReach(limits.capacity, ['whe_a']);
    // Another organization's attempts run (its own gate item), but none waits: nothing changes for this one.
    const released = endAll(busy, 'whe_a', false);
    expect(fill(released, 'whe_a', 0).admitted).toBe(limits.capacity);
  });

  it('a hanging tenant never earns a burst: 16 endpoints, every attempt timing out, still 6 in flight on an idle worker', () => {
    const endpoints = Array.from({ length: 16 }, (_, index) => `whe_${index}`);
    let state = EMPTY_GATE;
    for (let round = 0; round < 10; round += 1) {
      for (const endpointId of endpoints) state = fill(state, endpointId).state;
      expect(state.organization.inFlight).toBeLessThanOrEqual(6);
      for (const endpointId of endpoints) state = endAll(state, endpointId, true);
    }
    expect(state.organization.credit).toBe(0);
  });
});

describe('contention: a second tenant arriving', () => {
  /** Tenant A holding the whole worker, its attempts answering. */
  const holdingAll = () => roundsToReach(limits.capacity, ['whe_a']).state;

  it('gets its base share at once, whatever the first tenant holds', () => {
    const b = fill(EMPTY_GATE, 'whe_b1', 1);
    expect(b.admitted).toBe(3);
    let state = b.state;
    state = fill(state, 'whe_b2', 1).state;
    expect(state.organization.inFlight).toBe(6);
  });

  it('while it waits, the first tenant takes no new attempt beyond the fair split, and it grows to the split itself', () => {
    // A holds everything; B's attempts ended and it now waits: A may not start more until it is under half.
    let a = holdingAll();
    expect(admit(endAll(a, 'whe_a', false), 'whe_a', 0, limits).admitted).toBe(true);
    a = release(a, 'whe_a', false);
    expect(admit(a, 'whe_a', 1, limits)).toEqual({ admitted: false, reason: 'others-waiting' });
    for (let count = 0; count < 100; count += 1) a = release(a, 'whe_a', false);
    expect(fill(a, 'whe_a', 1).admitted).toBe(1);

    // B, once its first attempts answered, grows to the same split while A waits too.
    const b = roundsToReach(fairSplit(1, limits), ['whe_b'], EMPTY_GATE);
    expect(b.rounds).toBeLessThanOrEqual(7);
    expect(admit(b.state, 'whe_b', 1, limits)).toEqual({ admitted: false, reason: 'others-waiting' });
  });

  it('splits the worker between all who wait, never below the base share; with nobody waiting, only the worker bounds it', () => {
    expect([0, 1, 3, 99].map((others) => fairSplit(others, limits))).toEqual([Number.POSITIVE_INFINITY, 100, 50, 6]);
  });

  it('counts a tenant as waiting if its attempt sat in the queue and its attempts end (or it is new), never one whose attempts hang', () => {
    const earned = endAll(fill(EMPTY_GATE, 'whe_a').state, 'whe_a', false);
    expect(waitsForWorker(WAITED_FOR_WORKER_MS, earned)).toBe(true);
    expect(waitsForWorker(WAITED_FOR_WORKER_MS - 1, earned)).toBe(false);
    expect(waitsForWorker(null, earned)).toBe(false);
    expect(waitsForWorker(WAITED_FOR_WORKER_MS, EMPTY_GATE)).toBe(true);
    // A tenant whose attempts hang could use no more than its base share: it never holds others back.
    const hanging = endAll(fill(EMPTY_GATE, 'whe_a').state, 'whe_a', true);
    expect(waitsForWorker(60_000, hanging)).toBe(false);
    // One hanging endpoint beside one that answers: the tenant still uses what it earns.
    expect(waitsForWorker(60_000, release(endAll(earned, 'whe_a', false), 'whe_b', true))).toBe(true);
  });
});

describe('a hanging endpoint beside a healthy one of the same tenant', () => {
  it('stays at its base share while the healthy endpoint takes the burst; after a timeout it starts only within the base share', () => {
    // The healthy endpoint's attempts answer: it and the organization earn credit.
    let state = roundsToReach(60, ['whe_ok']).state;
    state = endAll(state, 'whe_ok', false);
    // The hanging endpoint: nothing of its own earned, 3 in flight though the organization has credit.
    const hanging = fill(state, 'whe_hang');
    expect([hanging.admitted, hanging.refused]).toEqual([3, 'endpoint-share']);
    state = hanging.state;
    // The healthy endpoint still bursts beyond the organization's base share beside it.
    const healthy = fill(state, 'whe_ok');
    expect(healthy.admitted).toBeGreaterThan(6);
    state = healthy.state;

    // Its first attempt times out: from then on it starts only while the organization is within its base share.
    state = release(state, 'whe_hang', true);
    expect(admit(state, 'whe_hang', 0, limits)).toEqual({ admitted: false, reason: 'organization-share' });
    state = endAll(state, 'whe_ok', false);
    expect(fill(state, 'whe_hang').admitted).toBe(1);
  });
});

describe('circuit breaker', () => {
  const timedOutTimes = (count: number, state: GateState = EMPTY_GATE): GateState => {
    for (let index = 0; index < count; index += 1) state = release(state, 'whe_a', true);
    return state;
  };

  it('opens after 3 consecutive timeouts: the endpoint gets 1 attempt in flight', () => {
    expect(fill(timedOutTimes(2), 'whe_a').admitted).toBe(3);
    const open = timedOutTimes(3);
    expect(isCircuitOpen(open, 'whe_a', limits)).toBe(true);
    const { admitted, refused } = fill(open, 'whe_a');
    expect([admitted, refused]).toEqual([1, 'open-circuit']);
  });

  it('leaves the other endpoints of the organization their share', () => {
    expect(fill(fill(timedOutTimes(5), 'whe_a').state, 'whe_b').admitted).toBe(3);
  });

  it('closes after an attempt that does not time out; an attempt never made changes nothing', () => {
    const open = timedOutTimes(4);
    expect(isCircuitOpen(release(open, 'whe_a', null), 'whe_a', limits)).toBe(true);
    const closed = release(open, 'whe_a', false);
    expect(isCircuitOpen(closed, 'whe_a', limits)).toBe(false);
    // Its one answered attempt earned it two more than its base share.
    expect(fill(closed, 'whe_a').admitted).toBe(5);
    // The count starts again: two more timeouts do not reopen it.
    expect(isCircuitOpen(timedOutTimes(2, closed), 'whe_a', limits)).toBe(false);
  });

  it("a timeout takes the endpoint's credit away, not the organization's", () => {
    const earned = roundsToReach(20, ['whe_a']).state;
    const after = release(endAll(earned, 'whe_a', false), 'whe_a', true);
    expect(endpointOf(after, 'whe_a').credit).toBe(0);
    expect(after.organization.credit).toBeGreaterThan(0);
  });
});

describe('deferralDelaySeconds', () => {
  it('at a base share with nothing earned: doubles from 1 s to at most 16 s, plus at most 1 s of jitter', () => {
    expect([0, 1, 2, 3, 4, 5, 9].map((deferrals) => deferralDelaySeconds(deferrals, 'organization-share', 15, () => 0))).toEqual([1, 2, 4, 8, 16, 16, 16]);
    expect(deferralDelaySeconds(0, 'endpoint-share', 15, () => 0.99)).toBe(2);
  });

  it('beyond the base share, for a tenant whose attempts end: 1 s each time, however often (its share grows as they end)', () => {
    expect([0, 1, 4, 9].map((deferrals) => deferralDelaySeconds(deferrals, 'burst-share', 15, () => 0))).toEqual([1, 1, 1, 1]);
  });

  it('held to the fair split while others wait: 1 s, then 2 s', () => {
    expect([0, 1, 2, 9].map((deferrals) => deferralDelaySeconds(deferrals, 'others-waiting', 15, () => 0))).toEqual([1, 2, 2, 2]);
  });

  it('waits at least the attempt deadline for an endpoint whose circuit is open (its one slot frees no sooner)', () => {
    expect([0, 3, 4].map((deferrals) => deferralDelaySeconds(deferrals, 'open-circuit', 15, () => 0))).toEqual([15, 15, 16]);
  });
});

describe('mayWaitForSlot: waiting for a slot in the invocation rather than a deferral', () => {
  const none = { organization: false, endpoint: false };
  const both = { organization: true, endpoint: true };
  const timedOut: GateState = { organization: { inFlight: 6, credit: 0 }, endpoints: { whe_a: { inFlight: 3, credit: 0, timeouts: 1 } } };

  it('beyond the base share of a tenant whose attempts end: always (its share grows as they end)', () => {
    expect(mayWaitForSlot('burst-share', EMPTY_GATE, 'whe_a', none)).toBe(true);
  });

  it("at a base share: only beside a young attempt of the organization (of the endpoint, at the endpoint's share), never for an endpoint in a run of timeouts", () => {
    expect(mayWaitForSlot('organization-share', EMPTY_GATE, 'whe_a', none)).toBe(false);
    expect(mayWaitForSlot('organization-share', EMPTY_GATE, 'whe_a', { organization: true, endpoint: false })).toBe(true);
    expect(mayWaitForSlot('endpoint-share', EMPTY_GATE, 'whe_a', { organization: true, endpoint: false })).toBe(false);
    expect(mayWaitForSlot('endpoint-share', EMPTY_GATE, 'whe_a', both)).toBe(true);
    expect(mayWaitForSlot('organization-share', timedOut, 'whe_a', both)).toBe(false);
  });

  it("never while others wait or the endpoint's circuit is open; an attempt is young for its first second", () => {
    expect(mayWaitForSlot('others-waiting', EMPTY_GATE, 'whe_a', both)).toBe(false);
    expect(mayWaitForSlot('open-circuit', EMPTY_GATE, 'whe_a', both)).toBe(false);
    expect([0, 999, 1000].map(isYoungAttempt)).toEqual([true, true, false]);
  });
});
