/**
 * Fair shares of the delivery worker between tenants and between endpoints (docs/webhooks.md
 * "Fairness"). The shares are work-conserving: they bind only when they have to.
 *
 * - **Base shares.** An organization may always have `organizationShare` attempts in flight
 *   (across every worker), an endpoint `endpointShare`, whatever anyone else does.
 * - **Earned burst.** Beyond its base share an organization (and each endpoint) may have two more
 *   attempts in flight for every attempt of its that ended without timing out lately (its
 *   *credit*), up to the whole worker: a tenant whose attempts end grows to use idle capacity
 *   within a few round trips (a slow start: its attempts in flight triple each round trip),
 *   while one whose attempts hang never earns a slot beyond its base share — what is unknown is
 *   not trusted with the worker.
 * - **Contention.** While other organizations are *waiting* (their attempts sat in the queue
 *   though they were within their shares: the worker is full), a burst is held to a fair split of
 *   the worker between them; base shares stay as they are.
 * - **Fast lane.** Only attempts that hold a slot for long need counting: an attempt to an
 *   endpoint that answers fast (one of its attempts ended within `FAST_ATTEMPT_MS` lately) starts
 *   without an admission, and is counted only if it is still under way after `FAST_ATTEMPT_MS`;
 *   the lane closes for the endpoint as soon as the counted attempts fill a share, or one times
 *   out. So a healthy tenant's deliveries cost the gate no write (docs/webhooks.md "Fairness").
 * - **Circuit breaker.** An endpoint whose attempts keep timing out gets `openCircuitShare`
 *   attempts until one ends without a timeout; an endpoint with any timeout in its current run
 *   gets no burst, and its attempts only start within its organization's base share, so a
 *   hanging endpoint cannot take the slots its healthy neighbours earned.
 */

export interface FairShareLimits {
  /** Attempts of one organization in flight at once that never wait for anyone (its base share). */
  organizationShare: number;
  /** Attempts to one endpoint in flight at once that never wait (below the organization's, so one endpoint never takes it all). */
  endpointShare: number;
  /** Attempts the delivery worker runs at once (batches × batch size): what is split between organizations that wait. */
  capacity: number;
  /** After this many consecutive timed-out attempts the endpoint's circuit is open… */
  openCircuitAfterTimeouts: number;
  /** …and it gets this many attempts in flight until an attempt ends without timing out. */
  openCircuitShare: number;
}

/** Whether the deployed delivery worker takes its attempts through the gate (docs/webhooks.md "Fairness"). */
export const FAIR_SHARES_IN_SERVICE = true;

/**
 * The delivery worker runs 20 batches of 10 messages at once (lib/app/workers.ts): 200 attempts. An
 * organization is sure of 6 of them and an endpoint of 3; the rest goes to whoever earns it.
 */
export const DEFAULT_FAIR_SHARE: FairShareLimits = { organizationShare: 6, endpointShare: 3, capacity: 200, openCircuitAfterTimeouts: 3, openCircuitShare: 1 };

export interface EndpointGate {
  inFlight: number;
  /** Attempts to the endpoint that ended without timing out lately (none since its last timeout). */
  credit: number;
  /** Consecutive timed-out attempts (0: its last attempt did not time out). */
  timeouts: number;
  /** Until when (epoch ms) the endpoint is in the fast lane: an attempt to it ended fast lately (`FAST_ATTEMPT_MS`). */
  fastUntil?: number;
  /** When (epoch ms) an attempt to it was last admitted, by any worker. */
  admittedAt?: number;
}

/** What the gate knows of one organization: its attempts in flight and credit, per endpoint. */
export interface GateState {
  organization: { inFlight: number; credit: number };
  endpoints: Record<string, EndpointGate>;
}

export const EMPTY_GATE: GateState = { organization: { inFlight: 0, credit: 0 }, endpoints: {} };
const NO_ENDPOINT: EndpointGate = { inFlight: 0, credit: 0, timeouts: 0 };

/**
 * Why an attempt waits. `organization-share`, `endpoint-share`: at a base share with nothing
 * earned beyond it (a tenant just starting, or one whose attempts hang). `open-circuit`: the
 * endpoint's one slot is in use. `burst-share`: beyond the base share, at what its attempts have
 * earned so far (more with each one that ends). `others-waiting`: at the fair split of the
 * worker while other organizations wait.
 */
export type ShareRefusal = 'organization-share' | 'endpoint-share' | 'open-circuit' | 'burst-share' | 'others-waiting';

export type Admission = { admitted: true; next: GateState } | { admitted: false; reason: ShareRefusal };

export function endpointOf(state: GateState, endpointId: string): EndpointGate {
  return state.endpoints[endpointId] ?? NO_ENDPOINT;
}

export function isCircuitOpen(state: GateState, endpointId: string, limits: FairShareLimits): boolean {
  return endpointOf(state, endpointId).timeouts >= limits.openCircuitAfterTimeouts;
}

/** A cap, and what bounds it: the base share, the credit earned, or the fair split while others wait. */
interface Cap {
  value: number;
  boundBy: 'base' | 'credit' | 'fair-split' | 'open-circuit';
}

export interface Shares {
  organization: Cap;
  endpoint: Cap;
}

/**
 * The most one organization may hold while `othersWaiting` other organizations wait: an equal
 * split of the worker, never below the base share. With nobody waiting, no bound: the worker
 * itself runs no more than `capacity` attempts at once.
 */
export function fairSplit(othersWaiting: number, limits: FairShareLimits): number {
  return othersWaiting > 0 ? Math.max(limits.organizationShare, Math.floor(limits.capacity / (othersWaiting + 1))) : Number.POSITIVE_INFINITY;
}

/** Attempts in flight beyond the base share that each attempt ended without a timeout earns: a burst triples each round trip. */
export const BURST_PER_ANSWERED_ATTEMPT = 2;

function burstCap(base: number, credit: number, othersWaiting: number, limits: FairShareLimits): Cap {
  const earned = base + BURST_PER_ANSWERED_ATTEMPT * credit;
  if (earned <= base) return { value: base, boundBy: 'base' };
  const split = fairSplit(othersWaiting, limits);
  return earned <= split ? { value: earned, boundBy: 'credit' } : { value: Math.max(base, split), boundBy: 'fair-split' };
}

/** How many attempts the organization, and the endpoint, may have in flight now. */
export function sharesOf(state: GateState, endpointId: string, othersWaiting: number, limits: FairShareLimits): Shares {
  const endpoint = endpointOf(state, endpointId);
  const base: Cap = { value: limits.organizationShare, boundBy: 'base' };
  if (endpoint.timeouts >= limits.openCircuitAfterTimeouts)
    return { organization: base, endpoint: { value: limits.openCircuitShare, boundBy: 'open-circuit' } };
  // A timeout in the endpoint's current run: no burst for it, only base shares.
  if (endpoint.timeouts > 0) return { organization: base, endpoint: { value: limits.endpointShare, boundBy: 'base' } };
  return {
    organization: burstCap(limits.organizationShare, state.organization.credit, othersWaiting, limits),
    endpoint: burstCap(limits.endpointShare, endpoint.credit, othersWaiting, limits),
  };
}

function refusal(cap: Cap, atBase: 'organization-share' | 'endpoint-share'): ShareRefusal {
  if (cap.boundBy === 'open-circuit') return 'open-circuit';
  if (cap.boundBy === 'fair-split') return 'others-waiting';
  return cap.boundBy === 'base' ? atBase : 'burst-share';
}

/** Whether one more attempt to `endpointId` may start now; if so, the state with it in flight. */
export function admit(state: GateState, endpointId: string, othersWaiting: number, limits: FairShareLimits): Admission {
  const shares = sharesOf(state, endpointId, othersWaiting, limits);
  const endpoint = endpointOf(state, endpointId);
  if (state.organization.inFlight >= shares.organization.value) return { admitted: false, reason: refusal(shares.organization, 'organization-share') };
  if (endpoint.inFlight >= shares.endpoint.value) return { admitted: false, reason: refusal(shares.endpoint, 'endpoint-share') };
  return {
    admitted: true,
    next: {
      organization: { ...state.organization, inFlight: state.organization.inFlight + 1 },
      endpoints: { ...state.endpoints, [endpointId]: { ...endpoint, inFlight: endpoint.inFlight + 1 } },
    },
  };
}

/**
 * The attempt's slot given back: `timedOut` true counts one more consecutive timeout for the
 * endpoint and takes its credit away; false (an attempt that ended otherwise: any answer, a
 * refused connection) closes its circuit and adds one to the organization's and the endpoint's
 * credit; null (no attempt was made) changes neither.
 */
export function release(state: GateState, endpointId: string, timedOut: boolean | null): GateState {
  const endpoint = endpointOf(state, endpointId);
  const inFlight = Math.max(0, endpoint.inFlight - 1);
  const next: EndpointGate =
    timedOut === true
      ? { inFlight, credit: 0, timeouts: endpoint.timeouts + 1 }
      : timedOut === false
        ? { inFlight, credit: endpoint.credit + 1, timeouts: 0 }
        : { ...endpoint, inFlight };
  return {
    organization: { inFlight: Math.max(0, state.organization.inFlight - 1), credit: state.organization.credit + (timedOut === false ? 1 : 0) },
    endpoints: { ...state.endpoints, [endpointId]: next },
  };
}

/** An attempt that ends within this of its start is fast: it never held a slot long enough to count (the fast lane). */
export const FAST_ATTEMPT_MS = 1000;

/** How long an attempt that ended fast keeps its endpoint in the fast lane (two of the gate's 45 s generations). */
export const FAST_LANE_MS = 90_000;

/**
 * Whether an attempt to the endpoint may start in the fast lane (no admission, counted only once
 * it is slow): the endpoint ended an attempt fast lately, has no timeout in its current run, and
 * the attempts counted now (the slow ones, and those admitted) leave room in every share.
 */
export function inFastLane(state: GateState, endpointId: string, nowMs: number, othersWaiting: number, limits: FairShareLimits): boolean {
  const endpoint = endpointOf(state, endpointId);
  return (endpoint.fastUntil ?? 0) > nowMs && endpoint.timeouts === 0 && admit(state, endpointId, othersWaiting, limits).admitted;
}

/** Whether an attempt that ended fast in the lane renews the endpoint's stay there: once less than half of it is left. */
export function renewsFastLane(state: GateState, endpointId: string, nowMs: number): boolean {
  return (endpointOf(state, endpointId).fastUntil ?? 0) - nowMs < FAST_LANE_MS / 2;
}

/** An attempt that sat in the queue this long past its due time waited for the worker, not for its turn. */
export const WAITED_FOR_WORKER_MS = 1000;

/**
 * An organization marked waiting stays so this long unless marked again: long enough that a
 * tenant trickling events behind another's backlog is still counted between its late attempts.
 */
export const WAITING_MARK_MS = 10_000;

/** How long a refused admission the policy lets wait may wait for a slot, and how often it looks again (a release in its invocation wakes it at once). */
export const SLOT_WAIT = { maxMs: 1000, pollMs: 100 } as const;

/**
 * At a base share with nothing earned, an admission waits only while an attempt of the same
 * organization (or endpoint) admitted in its invocation started less than this ago (an ask still
 * on its way is no attempt yet): a tenant just
 * starting earns credit within a round trip; past this, its attempts are slow or hanging and the
 * rest of its backlog is deferred at once.
 */
const YOUNG_ATTEMPT_MS = 1000;

export const isYoungAttempt = (ageMs: number) => ageMs < YOUNG_ATTEMPT_MS;

/**
 * Whether a refused admission waits for a slot rather than being deferred at once (a deferral
 * brings it back no sooner than 1 s): always beyond the base share of a tenant whose attempts
 * end (`burst-share`: its share grows as they end); at a base share only while a young attempt of
 * its organization runs beside it in the invocation (for `endpoint-share`: an attempt to its
 * endpoint admitted under `YOUNG_ATTEMPT_MS` ago by any worker, as the gate item shows, or an ask
 * for one still on its way in the invocation, so a new endpoint's first burst, even within one
 * batch, waits a round trip for its first attempts rather than seconds; an
 * organization's own share stays decided in the invocation, so a tenant whose many endpoints hang
 * never holds the worker waiting), and never for an endpoint in a run of timeouts nor while
 * others wait (`others-waiting`) or its circuit is open.
 */
export function mayWaitForSlot(reason: ShareRefusal, state: GateState, endpointId: string, young: { organization: boolean; endpoint: boolean }): boolean {
  if (reason === 'burst-share') return true;
  if (endpointOf(state, endpointId).timeouts > 0) return false;
  if (reason === 'organization-share') return young.organization;
  if (reason === 'endpoint-share') return young.endpoint;
  return false;
}

/**
 * Whether an admitted attempt says its organization is waiting for the worker: it sat in the
 * queue past `WAITED_FOR_WORKER_MS` (the worker was full), and the organization could use more of
 * the worker if others made room — its attempts end (credit), or it is new to the gate. An
 * organization whose attempts hang (an endpoint in a run of timeouts, nothing ended lately) never
 * counts as waiting: it could not use more than its base share.
 */
export function waitsForWorker(waitedMs: number | null, state: GateState): boolean {
  if (waitedMs === null || waitedMs < WAITED_FOR_WORKER_MS) return false;
  return state.organization.credit > 0 || Object.values(state.endpoints).every((endpoint) => endpoint.timeouts === 0);
}

/**
 * How long a deferred message waits before it is tried again, plus up to 1 s of jitter:
 * - beyond the base share, for a tenant whose attempts end (`burst-share`): 1 s, since its share
 *   grows with each attempt that ends;
 * - held to the fair split while others wait (`others-waiting`): 1 s, then 2 s, for as long as
 *   they wait;
 * - at a base share with nothing earned (`organization-share`, `endpoint-share`): doubling from
 *   1 s to 16 s, so the backlog of a tenant whose attempts hang cycles through the queue less
 *   and less often;
 * - an endpoint whose circuit is open frees its one slot only when an attempt ends, at worst after
 *   the attempt deadline: its messages wait at least that long.
 */
export function deferralDelaySeconds(deferrals: number, reason: ShareRefusal, attemptDeadlineSeconds: number, random: () => number): number {
  const doubling = Math.min(16, 2 ** Math.min(deferrals, 4));
  const base =
    reason === 'burst-share'
      ? 1
      : reason === 'others-waiting'
        ? Math.min(2, doubling)
        : reason === 'open-circuit'
          ? Math.max(doubling, attemptDeadlineSeconds)
          : doubling;
  return base + Math.round(random());
}
