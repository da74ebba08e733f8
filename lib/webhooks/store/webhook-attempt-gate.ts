// One piece: the gate item's counters, generations and waiting marks are one storage format, read and written only here.
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  admit,
  DEFAULT_FAIR_SHARE,
  EMPTY_GATE,
  endpointOf,
  FAST_ATTEMPT_MS,
  FAST_LANE_MS,
  inFastLane,
  renewsFastLane,
  isYoungAttempt,
  mayWaitForSlot,
  sharesOf,
  SLOT_WAIT,
  WAITING_MARK_MS,
  waitsForWorker,
  type FairShareLimits,
  type GateState,
  type ShareRefusal,
} from '../domain/fair-share.ts';
import type { AttemptGate } from '../domain/ports.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { envelopeAssignments } from '../../platform/dynamo/entity.ts';
import { GroupCommit } from '../../platform/dynamo/group-commit.ts';
import { webhookGateEntity, webhookGateWaitingEntity } from '../../platform/dynamo/entities.ts';

/**
 * The fair-share gate in the inventory table (docs/webhooks.md "Fairness"); the policy is
 * lib/webhooks/domain/fair-share.ts, this file the gate item's one storage format (the line above).
 *
 * One item per organization, changed only by atomic UpdateItems (never read-modify-write):
 * - `n_<g>`, `e_<g>_<endpoint>`: attempts counted in flight that started in generation `g`
 *   (time cut by `leaseMs`); the last two generations count, so a slot a dead worker never gave
 *   back stops counting by itself.
 * - `k_<g>`, `c_<g>_<endpoint>`: attempts that ended without timing out (the credit).
 * - `t_<endpoint>`: the run of consecutive timeouts; `f_<endpoint>`: until when the endpoint is
 *   in the fast lane; `v`: the item's version, so a worker keeps the latest copy it was answered.
 *
 * An endpoint in the fast lane starts attempts with no write, and one still under way after 1 s
 * is counted then, with no condition. Any other attempt is admitted by a conditional update
 * that keeps the counts within the shares computed from the item as last seen, and released by
 * an update that records its outcome; an invocation's admissions (and releases) of one
 * organization go together. A refusal decided on a copy seen within 100 ms writes nothing; one
 * the policy lets wait (`mayWaitForSlot`) waits up to 1 s in the invocation for a slot first.
 * A second item, shared by all, lists the organizations waiting for the worker (`w_<org>`).
 *
 * A gate serves one invocation; what it keeps between invocations is the container's `GateMemory`.
 */

/** Updates tried for one admission when the share looked free but the update found it taken. */
const ADMIT_TRIES = 3;
/** How long the item as last read (or returned by a write) stands for this invocation's refusals. */
const STATE_FRESH_MS = 100;
/** How long the item as last seen stands for a fast-lane decision: older, it is read again (a read, never a write). */
const LANE_FRESH_MS = 1000;
/** How long a read of the waiting organizations stands. */
const WAITING_FRESH_MS = 500;
/**
 * A container marks an organization waiting again at most this often: half the mark's life, so a
 * tenant that keeps waiting stays marked, while 20 containers of a tenant whose backlog is late
 * write a mark 4 times a second between them, not 20 (a write unit each on AWS).
 */
const WAITING_REMARK_MS = WAITING_MARK_MS / 2;

type Item = Record<string, unknown>;

/** One admission to count: its endpoint, the counters it was decided on, and the shares it saw. */
interface TakeAsk {
  endpointId: string;
  counters: Counters;
  organizationCap: number;
  endpointCap: number;
}

/** One slot to give back: the generation it was counted in (null: a fast-lane attempt never counted), how its attempt ended, and whether it ended fast. */
interface GivenBack {
  endpointId: string;
  from: number | null;
  timedOut: boolean | null;
  fast: boolean;
}

/** An attempt this invocation holds or is asking for. */
interface Lease {
  organizationId: string;
  endpointId: string;
  /** The generation it is counted in; null while it is not (an ask on its way, or a fast-lane attempt not slow yet). */
  generation: number | null;
  startedAt: number;
  /** Started in the fast lane: counted only once it is slow (`counting`). */
  lane: boolean;
  slowTimer?: ReturnType<typeof setTimeout>;
  counting?: Promise<void>;
}

interface Counters {
  generation: number;
  /** What the gate knows, the live generations summed. */
  state: GateState;
  /** In flight per generation: the organization's and each endpoint's (a condition needs the rest of the sum). */
  organizationByGeneration: Map<number, number>;
  endpointByGeneration: Map<string, Map<number, number>>;
  /** Attributes of generations no longer counted: removed by the next admission. */
  stale: string[];
}

const ATTRIBUTE = /^(?:(n|k)_(\d+)|(e|c)_(\d+)_(.+)|t_(.+)|f_(.+)|y_(.+))$/;

function numberOf(value: unknown): number {
  if (typeof value === 'number') return value;
  // An item returned with a refused update comes marshalled.
  if (value && typeof value === 'object' && 'N' in value) return Number((value as { N: string }).N);
  return 0;
}

/** The counters of the item at `generation` (live: it and the one before; a skewed clock's next counts too). */
export function countersOf(item: Item | undefined, generation: number): Counters {
  const counters: Counters = {
    generation,
    state: structuredClone(EMPTY_GATE),
    organizationByGeneration: new Map(),
    endpointByGeneration: new Map(),
    stale: [],
  };
  const endpoint = (id: string) => (counters.state.endpoints[id] ??= { inFlight: 0, credit: 0, timeouts: 0 });
  for (const [name, raw] of Object.entries(item ?? {})) {
    const match = ATTRIBUTE.exec(name);
    if (!match) continue;
    const value = numberOf(raw);
    if (match[6] !== undefined) {
      endpoint(match[6]).timeouts = Math.max(0, value);
      continue;
    }
    if (match[7] !== undefined) {
      endpoint(match[7]).fastUntil = value;
      continue;
    }
    if (match[8] !== undefined) {
      endpoint(match[8]).admittedAt = value;
      continue;
    }
    const of = Number(match[2] ?? match[4]);
    if (of < generation - 1) {
      counters.stale.push(name);
      continue;
    }
    const endpointId = match[5];
    if (match[1] === 'n') counters.organizationByGeneration.set(of, (counters.organizationByGeneration.get(of) ?? 0) + value);
    else if (match[1] === 'k') counters.state.organization.credit += value;
    else if (match[3] === 'e' && endpointId !== undefined) {
      const byGeneration = counters.endpointByGeneration.get(endpointId) ?? new Map<number, number>();
      byGeneration.set(of, (byGeneration.get(of) ?? 0) + value);
      counters.endpointByGeneration.set(endpointId, byGeneration);
    } else if (endpointId !== undefined) endpoint(endpointId).credit += value;
  }
  const sum = (counts: Map<number, number>) =>
    Math.max(
      0,
      [...counts.values()].reduce((total, count) => total + count, 0),
    );
  counters.state.organization.inFlight = sum(counters.organizationByGeneration);
  for (const [endpointId, counts] of counters.endpointByGeneration) endpoint(endpointId).inFlight = sum(counts);
  counters.state.organization.credit = Math.max(0, counters.state.organization.credit);
  return counters;
}

/** In flight in the live generations other than `generation`: what a count of `generation` must stay below its share less. */
function otherGenerations(counts: Map<number, number> | undefined, generation: number): number {
  let total = 0;
  for (const [of, count] of counts ?? []) if (of !== generation) total += count;
  return Math.max(0, total);
}

/**
 * What a container's gates remember between invocations, built at module scope: caches only, which
 * no write waits for (each organization's item as last seen, the waiting list as last read, when
 * this container last marked each organization waiting).
 */
export class GateMemory {
  /** Each organization's item as last read or written, and when. */
  readonly items = new Map<string, { item: Item | undefined; at: number }>();
  waiting: { item: Item | undefined; at: number } | undefined;
  readonly marked = new Map<string, number>();
  /** When this container last renewed each endpoint's stay in the fast lane (`<organization> <endpoint>`). */
  readonly laneRenewed = new Map<string, number>();
}

/**
 * One invocation's gate: build it per invocation (its writes coalesce that invocation's
 * admissions and releases only, as on Lambda, where a container runs one invocation at a time),
 * with the container's `memory`.
 */
export class WebhookAttemptGate implements AttemptGate {
  private readonly memory: GateMemory;

  constructor(
    private readonly tableName: string,
    private readonly options: {
      limits?: FairShareLimits;
      leaseMs: number;
      clock?: () => number;
      log?: (message: string, details: Record<string, unknown>) => void;
      /** The item listing the organizations waiting: the one every worker shares, unless a test keeps its gates apart from the suites running beside it. */
      waitingKey?: { pk: string; sk: string };
      /** The container's (a gate of its own without it). */
      memory?: GateMemory;
    },
  ) {
    this.memory = options.memory ?? new GateMemory();
  }

  /** Admissions of one organization decided in this invocation at once go to the table in one update, and so do releases (docs/performance.md "Webhooks"). */
  // At most 8 together: each endpoint adds to the condition, which DynamoDB caps at 4 KB.
  private readonly takes = new GroupCommit<TakeAsk, Item | undefined | Error>((organizationId, asks) => this.takeAll(organizationId, asks), { maxEntries: 8 });
  private readonly givenBack = new GroupCommit<GivenBack, void>((organizationId, slots) => this.giveBackAll(organizationId, slots));
  /** Fast-lane attempts of one organization found slow at once are counted in one update, with no condition: they are in flight already. */
  private readonly slowCounts = new GroupCommit<string, number>((organizationId, endpointIds) => this.countSlow(organizationId, endpointIds));

  /** Attempts this invocation holds or is asking for, with the generation each was counted in. */
  private readonly local = new Map<string, Lease>();
  private readonly reading = new Map<string, Promise<Item | undefined>>();
  private waitingRead: Promise<Item | undefined> | undefined;
  /** Admissions waiting for a slot of the organization to free. */
  private readonly waiters = new Map<string, Set<() => void>>();

  async acquire(request: {
    organizationId: string;
    endpointId: string;
    leaseId: string;
    waitedMs?: number | null;
  }): Promise<{ admitted: true } | { admitted: false; reason: ShareRefusal }> {
    const limits = this.options.limits ?? DEFAULT_FAIR_SHARE;
    let waits = 0;
    // An admission goes straight to the conditional update on the item as last seen, however old
    // (the update's condition holds the shares; a refusal returns the item for the next try); a
    // refusal is decided here only on an item seen a moment ago.
    let fresh = false;
    for (let tries = 1; ;) {
      const item = await this.itemOf(request.organizationId, fresh);
      const othersWaiting = await this.othersWaiting(request.organizationId, item);
      if (tries === 1 && waits === 0 && !fresh && (await this.startsInFastLane(request, item, limits))) return { admitted: true };
      const generation = this.generation();
      const counters = countersOf(item, generation);
      // Checked and reserved in one synchronous step: this worker's own attempts count even before the table shows them.
      const admission = admit(this.withLocal(counters.state, request.organizationId, request.endpointId), request.endpointId, othersWaiting, limits);
      if (!admission.admitted && !fresh && !this.seenLately(request.organizationId)) {
        fresh = true;
        continue;
      }
      if (!admission.admitted) {
        // Beyond the base share of a tenant whose attempts end, or at the base share while its
        // first attempts here are still young (they may yet end and earn it more): a slot or
        // credit comes within a round trip, sooner than a deferral (1 s at least) would bring the
        // attempt back. Never for an endpoint in a run of timeouts, nor while others wait.
        if (waits >= SLOT_WAIT.maxMs / SLOT_WAIT.pollMs || !this.mayWait(admission.reason, request, counters.state))
          return { admitted: false, reason: admission.reason };
        waits += 1;
        await this.slotFreedOrPoll(request.organizationId);
        fresh = true;
        continue;
      }
      const shares = sharesOf(counters.state, request.endpointId, othersWaiting, limits);
      this.local.set(request.leaseId, {
        organizationId: request.organizationId,
        endpointId: request.endpointId,
        generation: null,
        startedAt: this.now(),
        lane: false,
      });
      let written: Item | undefined;
      try {
        const taken = await this.takes.submit(request.organizationId, {
          endpointId: request.endpointId,
          counters,
          organizationCap: shares.organization.value,
          endpointCap: shares.endpoint.value,
        });
        if (taken instanceof Error) throw taken;
        written = taken;
      } catch (error) {
        this.local.delete(request.leaseId);
        throw error;
      }
      if (written) {
        this.local.set(request.leaseId, {
          organizationId: request.organizationId,
          endpointId: request.endpointId,
          generation,
          startedAt: this.now(),
          lane: false,
        });
        if (waitsForWorker(request.waitedMs ?? null, countersOf(written, generation).state)) await this.markWaiting(request.organizationId);
        return { admitted: true };
      }
      this.local.delete(request.leaseId);
      // The share was taken meanwhile (by another worker): decided again on the item as the refusal returned it,
      // and after a few such races, as good as a full share.
      if (tries >= ADMIT_TRIES) return { admitted: false, reason: 'organization-share' };
      tries += 1;
    }
  }

  /** Whether a refused admission may wait in this invocation for a slot rather than be deferred at once (the policy: lib/webhooks/domain/fair-share.ts). */
  private mayWait(reason: ShareRefusal, request: { organizationId: string; endpointId: string }, state: GateState): boolean {
    const now = this.now();
    // Attempts admitted (counted in a generation), not asks still on their way: those are no attempts yet.
    const ofOrganization = [...this.local.values()].filter((lease) => lease.organizationId === request.organizationId);
    const young = ofOrganization.filter((lease) => lease.generation !== null && isYoungAttempt(now - lease.startedAt));
    // An ask of the endpoint on its way in this invocation becomes an attempt (or gives up) within a write.
    const askingForEndpoint = ofOrganization.some((lease) => lease.endpointId === request.endpointId && lease.generation === null && !lease.lane);
    return mayWaitForSlot(reason, state, request.endpointId, {
      organization: young.length > 0,
      endpoint:
        askingForEndpoint ||
        young.some((lease) => lease.endpointId === request.endpointId) ||
        isYoungAttempt(now - (endpointOf(state, request.endpointId).admittedAt ?? 0)),
    });
  }

  /** Until this worker gives back a slot of the organization, or a poll's time passes (other workers' slots and credit show in a fresh read). */
  private slotFreedOrPoll(organizationId: string): Promise<void> {
    return new Promise((resolve) => {
      const waiters = this.waiters.get(organizationId) ?? new Set<() => void>();
      this.waiters.set(organizationId, waiters);
      const done = () => {
        clearTimeout(timer);
        waiters.delete(done);
        if (waiters.size === 0) this.waiters.delete(organizationId);
        resolve();
      };
      const timer = setTimeout(done, SLOT_WAIT.pollMs);
      waiters.add(done);
    });
  }

  async release(request: { organizationId: string; endpointId: string; leaseId: string; timedOut: boolean | null }): Promise<void> {
    const held = this.local.get(request.leaseId);
    if (held?.slowTimer) clearTimeout(held.slowTimer);
    await held?.counting;
    this.local.delete(request.leaseId);
    const fast = request.timedOut === false && held !== undefined && this.now() - held.startedAt < FAST_ATTEMPT_MS;
    if (held?.lane && held.generation === null) {
      // Never counted: nothing to give back. It writes only to renew the endpoint's stay in the
      // lane (at most once a period per container), or to start a run of timeouts.
      if (request.timedOut === true)
        await this.givenBack.submit(request.organizationId, { endpointId: request.endpointId, from: null, timedOut: true, fast: false });
      else if (fast && this.renewsLane(request.organizationId, request.endpointId))
        await this.givenBack.submit(request.organizationId, { endpointId: request.endpointId, from: null, timedOut: null, fast: true });
      return;
    }
    // The generation the attempt was counted in (another worker's: most likely this one).
    await this.givenBack.submit(request.organizationId, {
      endpointId: request.endpointId,
      from: held?.generation ?? this.generation(),
      timedOut: request.timedOut,
      fast,
    });
  }

  /**
   * An attempt to an endpoint in the fast lane (lib/webhooks/domain/fair-share.ts `inFastLane`),
   * decided on the organization's item as seen within `LANE_FRESH_MS`: started with no write, and
   * counted only if still under way after `FAST_ATTEMPT_MS`.
   */
  private async startsInFastLane(
    request: { organizationId: string; endpointId: string; leaseId: string; waitedMs?: number | null },
    seen: Item | undefined,
    limits: FairShareLimits,
  ): Promise<boolean> {
    // Not in the lane as last seen: decided with no further read, so asks of one invocation still meet in one admission.
    if ((endpointOf(countersOf(seen, this.generation()).state, request.endpointId).fastUntil ?? 0) <= this.now()) return false;
    const item = await this.itemWithin(request.organizationId, LANE_FRESH_MS);
    const state = this.withLocal(countersOf(item, this.generation()).state, request.organizationId, request.endpointId);
    if (!inFastLane(state, request.endpointId, this.now(), await this.othersWaiting(request.organizationId, item), limits)) return false;
    const lease: Lease = { organizationId: request.organizationId, endpointId: request.endpointId, generation: null, startedAt: this.now(), lane: true };
    lease.slowTimer = setTimeout(() => {
      lease.counting = this.slowCounts
        .submit(request.organizationId, request.endpointId)
        .then((generation) => {
          lease.generation = generation;
        })
        .catch((error: unknown) => {
          // Uncounted, it holds no slot in the table; it ends as a fast-lane attempt never counted.
          this.options.log?.('webhook slow attempt not counted', {
            organizationId: request.organizationId,
            error: error instanceof Error ? error.message : String(error),
          });
        });
    }, FAST_ATTEMPT_MS);
    this.local.set(request.leaseId, lease);
    if (waitsForWorker(request.waitedMs ?? null, state)) await this.markWaiting(request.organizationId);
    return true;
  }

  /** Whether this container should renew the endpoint's stay in the fast lane now (once per half period, whatever its invocations). */
  private renewsLane(organizationId: string, endpointId: string): boolean {
    const now = this.now();
    const state = countersOf(this.memory.items.get(organizationId)?.item, this.generation()).state;
    const key = `${organizationId} ${endpointId}`;
    if (!renewsFastLane(state, endpointId, now) || now - (this.memory.laneRenewed.get(key) ?? 0) < FAST_LANE_MS / 2) return false;
    this.memory.laneRenewed.set(key, now);
    return true;
  }

  /** Counts fast-lane attempts found slow in this generation, with no condition (they run already); the generation they are counted in. */
  private async countSlow(organizationId: string, endpointIds: readonly string[]): Promise<number[]> {
    const generation = this.generation();
    const names: Record<string, string> = { '#v': 'v', '#n': `n_${generation}` };
    const values: Record<string, number> = { ':one': 1, ':k': endpointIds.length };
    const adds = ['#v :one', '#n :k'];
    const byEndpoint = new Map<string, number>();
    for (const endpointId of endpointIds) byEndpoint.set(endpointId, (byEndpoint.get(endpointId) ?? 0) + 1);
    [...byEndpoint].forEach(([endpointId, count], index) => {
      names[`#e${index}`] = `e_${generation}_${endpointId}`;
      values[`:k${index}`] = count;
      adds.push(`#e${index} :k${index}`);
    });
    const { Attributes } = await documentClient.send(
      new UpdateCommand({
        TableName: this.tableName,
        Key: webhookGateEntity.key({ organizationId }),
        UpdateExpression: `ADD ${adds.join(', ')}`,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: values,
        ReturnValues: 'ALL_NEW',
      }),
    );
    this.remember(organizationId, Attributes);
    return endpointIds.map(() => generation);
  }

  /**
   * Counts this generation's attempts under the condition that the shares, computed from the item
   * as last seen, have room for all of them; and, whatever was seen, that each endpoint's base
   * shares (or its one slot) have room if it has a run of timeouts by now. Asks of one
   * organization that meet here go in one update (the tightest room each asker saw binds them
   * all); refused together, each is tried alone, so the table still admits those that fit. The
   * item written for each, or undefined for one that had no room.
   */
  private async takeAll(organizationId: string, asks: readonly TakeAsk[]): Promise<(Item | undefined | Error)[]> {
    const generation = asks[0]?.counters.generation;
    if (asks.length > 1 && asks.some((ask) => ask.counters.generation !== generation)) return this.eachAlone(organizationId, asks);
    const limits = this.options.limits ?? DEFAULT_FAIR_SHARE;
    const envelope = envelopeAssignments(webhookGateEntity);
    const names: Record<string, string> = { ...envelope.names, '#v': 'v', '#n': `n_${generation}` };
    const values: Record<string, unknown> = { ...envelope.values, ':one': 1, ':openAfter': limits.openCircuitAfterTimeouts };
    // `#n + k <= room`, written `#n < room - k + 1`: also true when the count is absent (0) if that is positive.
    const below = (name: string, room: number, count: number) => {
      const bound = room - count + 1;
      const placeholder = `:r${Object.keys(values).length}`;
      values[placeholder] = bound;
      return bound > 0 ? `(attribute_not_exists(${name}) OR ${name} < ${placeholder})` : `${name} < ${placeholder}`;
    };
    const smallest = (of: (ask: TakeAsk) => number, among: readonly TakeAsk[]) => Math.min(...among.map(of));
    const organizationOthers = (ask: TakeAsk) => otherGenerations(ask.counters.organizationByGeneration, ask.counters.generation);
    const organizationRoom = smallest((ask) => ask.organizationCap - organizationOthers(ask), asks);
    const organizationBaseRoom = smallest((ask) => limits.organizationShare - organizationOthers(ask), asks);
    const conditions = [below('#n', organizationRoom, asks.length)];
    const adds = ['#v :one', `#n :k`];
    values[':k'] = asks.length;
    const byEndpoint = new Map<string, TakeAsk[]>();
    // When each endpoint was last admitted: what lets a refused attempt beside a young one wait for its slot (`mayWaitForSlot`).
    const admittedAt: string[] = [];
    values[':now'] = this.now();
    for (const ask of asks) byEndpoint.set(ask.endpointId, [...(byEndpoint.get(ask.endpointId) ?? []), ask]);
    [...byEndpoint].forEach(([endpointId, ofEndpoint], index) => {
      const endpointOthers = (ask: TakeAsk) => otherGenerations(ask.counters.endpointByGeneration.get(endpointId), ask.counters.generation);
      const [e, t] = [`#e${index}`, `#t${index}`];
      names[e] = `e_${generation}_${endpointId}`;
      names[t] = `t_${endpointId}`;
      names[`#y${index}`] = `y_${endpointId}`;
      admittedAt.push(`#y${index} = :now`);
      values[`:k${index}`] = ofEndpoint.length;
      adds.push(`${e} :k${index}`);
      const count = ofEndpoint.length;
      conditions.push(
        below(
          e,
          smallest((ask) => ask.endpointCap - endpointOthers(ask), ofEndpoint),
          count,
        ),
        // `t_<endpoint>` exists only during a run of timeouts (it is removed when one ends otherwise).
        `(attribute_not_exists(${t}) OR (${below('#n', organizationBaseRoom, asks.length)} AND ${below(
          e,
          smallest((ask) => limits.endpointShare - endpointOthers(ask), ofEndpoint),
          count,
        )} AND (${t} < :openAfter OR ${below(
          e,
          smallest((ask) => limits.openCircuitShare - endpointOthers(ask), ofEndpoint),
          count,
        )})))`,
      );
    });
    const stale = [...new Set(asks.flatMap((ask) => ask.counters.stale))];
    const staleNames = Object.fromEntries(stale.map((name, index) => [`#s${index}`, name]));
    try {
      const { Attributes } = await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookGateEntity.key({ organizationId }),
          UpdateExpression: `SET ${[envelope.assignments, ...admittedAt].join(', ')} ADD ${adds.join(', ')}${stale.length > 0 ? ` REMOVE ${Object.keys(staleNames).join(', ')}` : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { ...names, ...staleNames },
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      this.remember(organizationId, Attributes);
      return asks.map(() => Attributes ?? {});
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The item as the refusal found it stands for the next decision; without it, the next one reads.
      if (error.Item) this.remember(organizationId, error.Item as Item);
      else this.memory.items.delete(organizationId);
      if (asks.length === 1) return [undefined];
      return this.eachAlone(organizationId, asks);
    }
  }

  /** Each ask in its own update; one that fails is answered with its error, the others as the table answered them (an admitted slot is never left unreported). */
  private async eachAlone(organizationId: string, asks: readonly TakeAsk[]): Promise<(Item | undefined | Error)[]> {
    const settled = await Promise.allSettled(asks.map((ask) => this.takeAll(organizationId, [ask])));
    return settled.map((outcome) =>
      outcome.status === 'fulfilled'
        ? (outcome.value[0] as Item | undefined | Error)
        : outcome.reason instanceof Error
          ? outcome.reason
          : new Error(String(outcome.reason)),
    );
  }

  /**
   * Gives slots of one organization back in one update: each from the generation it was counted
   * in, with what its attempt's end says (see `release`). A timed-out attempt's entries
   * (its endpoint's run of timeouts, its credit taken) go alone, so one update never both adds to
   * and removes an endpoint's counters.
   */
  private async giveBackAll(organizationId: string, slots: readonly GivenBack[]): Promise<void[]> {
    const timedOut = slots.filter((slot) => slot.timedOut === true);
    const rest = slots.filter((slot) => slot.timedOut !== true);
    await Promise.all([...(rest.length > 0 ? [rest] : []), ...timedOut.map((slot) => [slot])].map((together) => this.giveBack(organizationId, together)));
    // Admissions waiting here for a slot of this organization look again.
    for (const waiter of [...(this.waiters.get(organizationId) ?? [])]) waiter();
    return slots.map(() => undefined);
  }

  private async giveBack(organizationId: string, slots: readonly GivenBack[]): Promise<void> {
    const generation = this.generation();
    const deltas = new Map<string, number>();
    const add = (name: string, delta: number) => deltas.set(name, (deltas.get(name) ?? 0) + delta);
    const removes = new Set<string>();
    const sets = new Map<string, number>();
    for (const slot of slots) {
      if (slot.from !== null) {
        add(`n_${slot.from}`, -1);
        add(`e_${slot.from}_${slot.endpointId}`, -1);
      }
      if (slot.fast) sets.set(`f_${slot.endpointId}`, this.now() + FAST_LANE_MS);
      if (slot.timedOut === true) {
        // One more timeout in the endpoint's run, and its credit (every live generation's) gone.
        add(`t_${slot.endpointId}`, 1);
        removes.add(`c_${generation - 1}_${slot.endpointId}`).add(`c_${generation}_${slot.endpointId}`);
      } else if (slot.timedOut === false) {
        // The run of timeouts ends; the organization and the endpoint earn one more slot of credit.
        add(`k_${generation}`, 1);
        add(`c_${generation}_${slot.endpointId}`, 1);
        removes.add(`t_${slot.endpointId}`);
      }
    }
    // A timed-out attempt's endpoint leaves the lane at once (it also has a run of timeouts now).
    for (const slot of slots) if (slot.timedOut === true) removes.add(`f_${slot.endpointId}`);
    const names: Record<string, string> = { '#v': 'v' };
    const values: Record<string, number> = { ':one': 1 };
    const adds = ['#v :one'];
    [...deltas].forEach(([name, delta], index) => {
      names[`#a${index}`] = name;
      values[`:a${index}`] = delta;
      adds.push(`#a${index} :a${index}`);
    });
    const removed = [...removes].map((name, index) => {
      names[`#x${index}`] = name;
      return `#x${index}`;
    });
    const assigned = [...sets].map(([name, until], index) => {
      names[`#f${index}`] = name;
      values[`:f${index}`] = until;
      return `#f${index} = :f${index}`;
    });
    try {
      const { Attributes } = await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookGateEntity.key({ organizationId }),
          UpdateExpression: `ADD ${adds.join(', ')}${assigned.length > 0 ? ` SET ${assigned.join(', ')}` : ''}${removed.length > 0 ? ` REMOVE ${removed.join(', ')}` : ''}`,
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      );
      this.remember(organizationId, Attributes);
    } catch (error) {
      // The slots stop counting with their generation; the attempts themselves are done and settled.
      this.options.log?.('webhook attempt slots not given back: they stop counting on their own', {
        organizationId,
        slots: slots.length,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  /** The state as read, with this worker's own attempts where it knows more (those not yet counted in the table, or counted after the read). */
  private withLocal(state: GateState, organizationId: string, endpointId: string): GateState {
    // A fast-lane attempt not yet slow holds no slot: it is not counted here either.
    const mine = [...this.local.values()].filter((lease) => lease.organizationId === organizationId && !(lease.lane && lease.generation === null));
    const ofEndpoint = mine.filter((lease) => lease.endpointId === endpointId).length;
    const endpoint = endpointOf(state, endpointId);
    return {
      organization: { ...state.organization, inFlight: Math.max(state.organization.inFlight, mine.length) },
      endpoints: { ...state.endpoints, [endpointId]: { ...endpoint, inFlight: Math.max(endpoint.inFlight, ofEndpoint) } },
    };
  }

  /** Keeps the item as seen, unless a later version was seen already (answers to concurrent writes arrive in any order). */
  private remember(organizationId: string, item: Item | undefined): void {
    const known = this.memory.items.get(organizationId);
    if (known?.item && numberOf(known.item.v) > numberOf(item?.v)) {
      known.at = this.now();
      return;
    }
    this.memory.items.set(organizationId, { item, at: this.now() });
  }

  private seenLately(organizationId: string): boolean {
    const known = this.memory.items.get(organizationId);
    return known !== undefined && this.now() - known.at <= STATE_FRESH_MS;
  }

  /** The organization's item as last seen (if `fresh`, only if that was a moment ago), else read; one read at a time per organization. */
  private itemOf(organizationId: string, fresh: boolean): Promise<Item | undefined> {
    return this.itemWithin(organizationId, fresh ? STATE_FRESH_MS : Number.POSITIVE_INFINITY);
  }

  /** The organization's item as seen within `ms`, else read (one read at a time per organization). */
  private async itemWithin(organizationId: string, ms: number): Promise<Item | undefined> {
    const known = this.memory.items.get(organizationId);
    if (known && this.now() - known.at <= ms) return known.item;
    let reading = this.reading.get(organizationId);
    if (!reading) {
      reading = documentClient
        .send(new GetCommand({ TableName: this.tableName, Key: webhookGateEntity.key({ organizationId }), ConsistentRead: true }))
        .then(({ Item }) => {
          this.remember(organizationId, Item);
          return this.memory.items.get(organizationId)?.item;
        })
        .finally(() => this.reading.delete(organizationId));
      this.reading.set(organizationId, reading);
    }
    return reading;
  }

  /** Other organizations waiting for the worker now; read only when the organization has earned a burst (otherwise it changes nothing). */
  private async othersWaiting(organizationId: string, item: Item | undefined): Promise<number> {
    if (countersOf(item, this.generation()).state.organization.credit === 0) return 0;
    const now = this.now();
    if (!this.memory.waiting || now - this.memory.waiting.at > WAITING_FRESH_MS) {
      this.waitingRead ??= documentClient
        .send(new GetCommand({ TableName: this.tableName, Key: this.options.waitingKey ?? webhookGateWaitingEntity.key({}) }))
        .then(({ Item }) => {
          this.memory.waiting = { item: Item, at: this.now() };
          return Item;
        })
        .finally(() => (this.waitingRead = undefined));
      await this.waitingRead;
    }
    return Object.entries(this.memory.waiting?.item ?? {}).filter(
      ([name, until]) => name.startsWith('w_') && name !== `w_${organizationId}` && numberOf(until) > now,
    ).length;
  }

  private async markWaiting(organizationId: string): Promise<void> {
    const now = this.now();
    if (now - (this.memory.marked.get(organizationId) ?? 0) < WAITING_REMARK_MS) return;
    this.memory.marked.set(organizationId, now);
    const envelope = envelopeAssignments(webhookGateWaitingEntity);
    // Marks that ran out, as last read, go with it: the item holds only the organizations waiting lately.
    const expired = Object.entries(this.memory.waiting?.item ?? {})
      .filter(([name, until]) => name.startsWith('w_') && name !== `w_${organizationId}` && numberOf(until) <= now)
      .map(([name]) => name);
    const expiredNames = Object.fromEntries(expired.map((name, index) => [`#x${index}`, name]));
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.options.waitingKey ?? webhookGateWaitingEntity.key({}),
          UpdateExpression: `SET ${envelope.assignments}, #w = :until${expired.length > 0 ? ` REMOVE ${Object.keys(expiredNames).join(', ')}` : ''}`,
          ExpressionAttributeNames: { ...envelope.names, '#w': `w_${organizationId}`, ...expiredNames },
          ExpressionAttributeValues: { ...envelope.values, ':until': now + WAITING_MARK_MS },
        }),
      );
    } catch (error) {
      // Only a signal: the next late attempt marks it again.
      this.options.log?.('webhook organization not marked waiting', { organizationId, error: error instanceof Error ? error.message : String(error) });
    }
  }

  private generation(): number {
    return Math.floor(this.now() / this.options.leaseMs);
  }

  private now(): number {
    return this.options.clock?.() ?? Date.now();
  }
}
