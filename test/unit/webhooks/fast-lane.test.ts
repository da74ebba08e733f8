import { describe, expect, it } from 'vitest';
import { EMPTY_GATE, FAST_LANE_MS, inFastLane, renewsFastLane, type FairShareLimits, type GateState } from '../../../lib/webhooks/domain/fair-share.ts';

/** The fast lane of the fair-share gate (docs/webhooks.md "Fairness"): who starts an attempt with no admission. */

const limits: FairShareLimits = { organizationShare: 6, endpointShare: 3, capacity: 200, openCircuitAfterTimeouts: 3, openCircuitShare: 1 };
const now = 1_800_000_000_000;
const gate = (endpoint: Partial<GateState['endpoints'][string]>, organizationInFlight = 0): GateState => ({
  organization: { inFlight: organizationInFlight, credit: 0 },
  endpoints: { whe_1: { inFlight: 0, credit: 0, timeouts: 0, ...endpoint } },
});

describe('the fast lane', () => {
  it('takes an endpoint that ended an attempt fast lately, while the counted attempts leave room', () => {
    expect(inFastLane(gate({ fastUntil: now + 1 }), 'whe_1', now, 0, limits)).toBe(true);
    expect(inFastLane(gate({ fastUntil: now + 1, inFlight: 2 }, 5), 'whe_1', now, 0, limits)).toBe(true);
  });

  it('is closed to an endpoint never fast, or whose stay ran out', () => {
    expect(inFastLane(EMPTY_GATE, 'whe_1', now, 0, limits)).toBe(false);
    expect(inFastLane(gate({ fastUntil: now }), 'whe_1', now, 0, limits)).toBe(false);
  });

  it("is closed while a run of timeouts lasts, or once the counted (slow) attempts fill the endpoint's or the organization's share", () => {
    expect(inFastLane(gate({ fastUntil: now + 1, timeouts: 1 }), 'whe_1', now, 0, limits)).toBe(false);
    expect(inFastLane(gate({ fastUntil: now + 1, inFlight: 3 }), 'whe_1', now, 0, limits)).toBe(false);
    expect(inFastLane(gate({ fastUntil: now + 1 }, 6), 'whe_1', now, 0, limits)).toBe(false);
  });

  it('is renewed by a fast attempt once less than half of the stay is left', () => {
    expect(renewsFastLane(gate({ fastUntil: now + FAST_LANE_MS / 2 + 1 }), 'whe_1', now)).toBe(false);
    expect(renewsFastLane(gate({ fastUntil: now + FAST_LANE_MS / 2 - 1 }), 'whe_1', now)).toBe(true);
    expect(renewsFastLane(EMPTY_GATE, 'whe_1', now)).toBe(true);
  });
});
