/**
 * Fair shares of the delivery worker between tenants and between endpoints (docs/webhooks.md
 * "Fairness"). Each organization's attempts in flight, across every worker, are leases in one
 * gate item; an attempt starts only if the organization holds fewer leases than its share and
 * the endpoint fewer than its own. An endpoint whose attempts keep timing out (the circuit
 * breaker) gets one lease until an attempt ends without a timeout. A lease outlives a worker
 * that dies mid-attempt only until it expires.
 */

export interface FairShareLimits {
  /** Attempts of one organization in flight at once, whatever its endpoints. */
  organizationShare: number;
  /** Attempts to one endpoint in flight at once: below the organization's, so one endpoint never takes it all. */
  endpointShare: number;
  /** After this many consecutive timed-out attempts the endpoint's circuit is open… */
  openCircuitAfterTimeouts: number;
  /** …and it gets this many attempts in flight until an attempt ends without timing out. */
  openCircuitShare: number;
}

/**
 * Whether the deployed delivery worker takes its attempts through the gate. Off: measured on the
 * local stack (docs/performance.md "Webhooks"), these shares are not work-conserving — a single
 * healthy tenant was held to 6 attempts in flight and its backlog deferred again and again: 8.4
 * deliveries/s instead of 181, and commit → first attempt p50 34 s instead of 99 ms. The gate
 * stays tested (test/integration/webhook-fairness.test.ts runs it) until shares that only bind
 * under contention replace these.
 */
export const FAIR_SHARES_IN_SERVICE = false;

/** The delivery worker runs 20 batches at once (lib/workers.ts): one organization can hold at most 6 attempts of them. */
export const DEFAULT_FAIR_SHARE: FairShareLimits = { organizationShare: 6, endpointShare: 3, openCircuitAfterTimeouts: 3, openCircuitShare: 1 };

export interface AttemptLease {
  endpointId: string;
  /** Milliseconds since the epoch: past it the lease no longer counts (its worker died). */
  expiresAt: number;
}

/** The gate item of one organization. */
export interface GateState {
  /** Bumped by every write: an admission is written only over the state it read. */
  version: number;
  leases: Record<string, AttemptLease>;
  /** Consecutive timed-out attempts per endpoint (absent: none). */
  timeouts: Record<string, number>;
}

export const EMPTY_GATE: GateState = { version: 0, leases: {}, timeouts: {} };

export type ShareRefusal = 'organization-share' | 'endpoint-share' | 'open-circuit';

export type Admission = { admitted: true; next: GateState } | { admitted: false; reason: ShareRefusal };

export function isCircuitOpen(state: GateState, endpointId: string, limits: FairShareLimits): boolean {
  return (state.timeouts[endpointId] ?? 0) >= limits.openCircuitAfterTimeouts;
}

/** Whether one more attempt to `endpointId` may start now; if so, the state with its lease (expired leases dropped). */
export function admit(state: GateState, request: { leaseId: string; endpointId: string; now: number; leaseMs: number }, limits: FairShareLimits): Admission {
  const live = Object.entries(state.leases).filter(([, lease]) => lease.expiresAt > request.now);
  if (live.length >= limits.organizationShare) return { admitted: false, reason: 'organization-share' };
  const ofEndpoint = live.filter(([, lease]) => lease.endpointId === request.endpointId).length;
  const circuitOpen = isCircuitOpen(state, request.endpointId, limits);
  if (ofEndpoint >= (circuitOpen ? limits.openCircuitShare : limits.endpointShare)) return { admitted: false, reason: circuitOpen ? 'open-circuit' : 'endpoint-share' };
  const leases = Object.fromEntries([...live, [request.leaseId, { endpointId: request.endpointId, expiresAt: request.now + request.leaseMs }]]);
  return { admitted: true, next: { version: state.version + 1, leases, timeouts: state.timeouts } };
}

/**
 * The lease given back: `timedOut` true counts one more consecutive timeout for the endpoint,
 * false (an attempt that ended otherwise: any answer, a refused connection) closes its circuit,
 * null (no attempt was made) leaves it as it is.
 */
export function release(state: GateState, request: { leaseId: string; endpointId: string; timedOut: boolean | null }): GateState {
  const leases = { ...state.leases };
  delete leases[request.leaseId];
  const timeouts = { ...state.timeouts };
  if (request.timedOut === true) timeouts[request.endpointId] = (timeouts[request.endpointId] ?? 0) + 1;
  else if (request.timedOut === false) delete timeouts[request.endpointId];
  return { version: state.version + 1, leases, timeouts };
}

/**
 * How long a deferred message waits before it is tried again: doubling from 1 s, at most 16 s,
 * plus up to 1 s of jitter. An endpoint whose circuit is open frees its one slot only when an
 * attempt ends, at worst after the attempt deadline: its messages wait at least that long.
 */
export function deferralDelaySeconds(deferrals: number, reason: ShareRefusal, attemptDeadlineSeconds: number, random: () => number): number {
  const doubling = Math.min(16, 2 ** Math.min(deferrals, 4));
  return (reason === 'open-circuit' ? Math.max(doubling, attemptDeadlineSeconds) : doubling) + Math.round(random());
}
