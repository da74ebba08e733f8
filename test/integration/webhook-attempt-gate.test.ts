import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { describe, expect, it } from 'vitest';
import { FAST_ATTEMPT_MS, FAST_LANE_MS, type FairShareLimits } from '../../lib/webhooks/domain/fair-share.ts';
import { documentClient, dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { webhookGateEntity } from '../../lib/platform/dynamo/entities.ts';
import { WebhookAttemptGate } from '../../lib/webhooks/store/webhook-attempt-gate.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName } from '../support/events.ts';

/**
 * The fair-share gate on DynamoDB Local (docs/webhooks.md "Fairness"): several workers (gate
 * instances, as separate containers would be) asking at once never hold more than the shares,
 * a freed slot is taken again, attempts that end earn a burst beyond the base share, an
 * organization waiting for the worker holds another's burst to the fair split, the circuit
 * breaker's count survives from worker to worker, and a slot never given back stops counting.
 */

const limits: FairShareLimits = { organizationShare: 4, endpointShare: 2, capacity: 200, openCircuitAfterTimeouts: 2, openCircuitShare: 1 };
const LEASE_MS = 60_000;
/** This file's own list of organizations waiting: the suites running beside it (the fairness tests through the server) mark theirs in the shared one. */
const waitingKey = { pk: `WHGATE#WAITING#TEST#${randomUUID()}`, sk: 'WAITING' };
/** Added to the workers' clock: the attempts below that must count as slow run past the fast lane's bound (`FAST_ATTEMPT_MS`). */
let elapsedMs = 0;
const testClock = () => Date.now() + elapsedMs;
/** Lets the attempts in flight run 2 s: each one that ends is then a counted attempt, not a fast one that puts its endpoint in the fast lane. */
const runSlowly = () => (elapsedMs += 2 * FAST_ATTEMPT_MS);
const workers = (count: number, options: { limits?: FairShareLimits; clock?: () => number } = {}) =>
  Array.from(
    { length: count },
    () =>
      new WebhookAttemptGate(tableName('inventory'), {
        limits: options.limits ?? limits,
        leaseMs: LEASE_MS,
        waitingKey,
        clock: options.clock ?? testClock,
      }),
  );

/** Asks for `count` slots to each endpoint at once, spread over the gates; the requests admitted. */
async function askAtOnce(gates: WebhookAttemptGate[], organizationId: string, endpointIds: string[], count: number, prefix: string) {
  const asks = Array.from({ length: count * endpointIds.length }, (_, index) => ({
    gate: gates[index % gates.length] as WebhookAttemptGate,
    request: { organizationId, endpointId: endpointIds[index % endpointIds.length] as string, leaseId: `${prefix}-${index}` },
  }));
  const answers = await Promise.all(asks.map(async ({ gate, request }) => ({ gate, request, admission: await gate.acquire(request) })));
  return answers.filter(({ admission }) => admission.admitted);
}

async function gateItem(organizationId: string) {
  const { Item } = await documentClient.send(
    new GetCommand({ TableName: tableName('inventory'), Key: webhookGateEntity.key({ organizationId }), ConsistentRead: true }),
  );
  return Item;
}

const countedInFlight = (item: Record<string, unknown> | undefined) =>
  Object.entries(item ?? {}).reduce((total, [name, value]) => total + (name.startsWith('n_') ? Number(value) : 0), 0);

describe('WebhookAttemptGate', () => {
  it('four workers asking 40 times at once for 8 endpoints of one organization: at most 4 slots, at most 2 per endpoint', async () => {
    const organizationId = uniqueOrganization();
    const gates = workers(4);

    const admitted = (
      await askAtOnce(
        gates,
        organizationId,
        Array.from({ length: 8 }, (_, index) => `whe_${index}`),
        5,
        'lease',
      )
    ).map(({ request }) => request);

    expect(admitted.length).toBeGreaterThanOrEqual(1);
    expect(admitted.length).toBeLessThanOrEqual(4);
    for (const endpointId of new Set(admitted.map((request) => request.endpointId)))
      expect(admitted.filter((request) => request.endpointId === endpointId).length).toBeLessThanOrEqual(2);
    // Every slot given back (by any worker): a fresh worker is admitted again.
    await Promise.all(admitted.map((request) => (gates[0] as WebhookAttemptGate).release({ ...request, timedOut: null })));
    const [fresh] = workers(1);
    expect(await fresh?.acquire({ organizationId, endpointId: 'whe_0', leaseId: 'after' })).toEqual({ admitted: true });
  });

  it('attempts that end earn a burst: the next round of the same organization goes beyond its share, still never beyond what it earned', async () => {
    const organizationId = uniqueOrganization();
    const gates = workers(4);
    const endpoints = ['whe_a', 'whe_b'];

    const first = await askAtOnce(gates, organizationId, endpoints, 10, 'first');
    expect(first).toHaveLength(4);
    runSlowly();
    await Promise.all(first.map(({ gate, request }) => gate.release({ ...request, timedOut: false })));

    // Four answered, two to each endpoint: the organization may have 4 + 2 × 4 in flight, each endpoint 2 + 2 × 2.
    const second = await askAtOnce(workers(4), organizationId, endpoints, 10, 'second');
    expect(second).toHaveLength(12);
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: tableName('inventory'), Key: webhookGateEntity.key({ organizationId }), ConsistentRead: true }),
    );
    expect(
      Object.entries(Item ?? {})
        .filter(([name]) => name.startsWith('n_'))
        .reduce((sum, [, count]) => sum + Number(count), 0),
    ).toBe(12);
  });

  it("an organization waiting for the worker holds another's burst to the fair split", async () => {
    const small: FairShareLimits = { organizationShare: 2, endpointShare: 2, capacity: 8, openCircuitAfterTimeouts: 2, openCircuitShare: 1 };
    const [busy, waiting] = [uniqueOrganization(), uniqueOrganization()];
    // The busy organization earns its way to the whole (small) worker: 2, then 6, then 8 in flight.
    for (let round = 0; round < 4; round += 1) {
      const admitted = await askAtOnce(workers(2, { limits: small }), busy, ['whe_a', 'whe_b', 'whe_c', 'whe_d'], 2, `round-${round}`);
      runSlowly();
      if (round < 3) await Promise.all(admitted.map(({ gate, request }) => gate.release({ ...request, timedOut: false })));
      else expect(admitted).toHaveLength(8);
    }
    // The other organization's attempts answer, then one sits in the queue 5 s: it is waiting.
    const [other] = workers(1, { limits: small }) as [WebhookAttemptGate];
    const earn = { organizationId: waiting, endpointId: 'whe_w', leaseId: 'earn' };
    expect(await other.acquire(earn)).toEqual({ admitted: true });
    runSlowly();
    await other.release({ ...earn, timedOut: false });
    expect(await other.acquire({ organizationId: waiting, endpointId: 'whe_w', leaseId: 'late', waitedMs: 5000 })).toEqual({ admitted: true });

    // The busy organization, 8 in flight, is now held to half of the worker: its attempts wait, within it they start.
    const [later] = workers(1, { limits: small }) as [WebhookAttemptGate];
    expect(await later.acquire({ organizationId: busy, endpointId: 'whe_a', leaseId: 'more' })).toEqual({ admitted: false, reason: 'others-waiting' });
  });

  it('opens the circuit after consecutive timeouts seen by different workers, and closes it after an answer', async () => {
    const organizationId = uniqueOrganization();
    const [first, second, third] = workers(3) as [WebhookAttemptGate, WebhookAttemptGate, WebhookAttemptGate];
    const lease = (leaseId: string) => ({ organizationId, endpointId: 'whe_slow', leaseId });
    for (const [gate, id] of [
      [first, 't1'],
      [second, 't2'],
    ] as const) {
      expect(await gate.acquire(lease(id))).toEqual({ admitted: true });
      await gate.release({ ...lease(id), timedOut: true });
    }

    expect(await third.acquire(lease('probe'))).toEqual({ admitted: true });
    // The first worker last saw one timeout: the table's condition still holds it to the one slot.
    expect(await first.acquire(lease('second'))).toEqual({ admitted: false, reason: 'open-circuit' });
    await third.release({ ...lease('probe'), timedOut: false });

    const [fresh] = workers(1);
    expect(await fresh?.acquire(lease('a'))).toEqual({ admitted: true });
    expect(await fresh?.acquire(lease('b'))).toEqual({ admitted: true });
  });

  it('a slot never given back (its worker died) stops counting two generations later', async () => {
    const organizationId = uniqueOrganization();
    let now = Date.now();
    const clock = () => now;
    const admitted = await askAtOnce(workers(2, { clock }), organizationId, ['whe_a', 'whe_b'], 4, 'dies');
    expect(admitted).toHaveLength(4);
    expect(await workers(1, { clock })[0]?.acquire({ organizationId, endpointId: 'whe_c', leaseId: 'blocked' })).toEqual({
      admitted: false,
      reason: 'organization-share',
    });

    now += LEASE_MS;
    expect(await workers(1, { clock })[0]?.acquire({ organizationId, endpointId: 'whe_c', leaseId: 'still' })).toEqual({
      admitted: false,
      reason: 'organization-share',
    });
    now += LEASE_MS;
    expect(await workers(1, { clock })[0]?.acquire({ organizationId, endpointId: 'whe_c', leaseId: 'after' })).toEqual({ admitted: true });
    // The dead generation's counters went with that admission.
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: tableName('inventory'), Key: webhookGateEntity.key({ organizationId }), ConsistentRead: true }),
    );
    expect(Object.keys(Item ?? {}).filter((name) => /^[nekc]_/.test(name))).toEqual(expect.arrayContaining([expect.stringMatching(/^n_/)]));
    expect(Object.keys(Item ?? {}).filter((name) => name.startsWith('n_'))).toHaveLength(1);
  });

  it('admissions and releases of one organization asked at once go to the table together: one write each way, the shares still held', async () => {
    const organizationId = uniqueOrganization();
    const [gate] = workers(1, { limits: { ...limits, organizationShare: 8, endpointShare: 3 } }) as [WebhookAttemptGate];
    // Warm: the item as seen, so the asks below decide without a read.
    const warm = { organizationId, endpointId: 'whe_w', leaseId: 'warm' };
    await gate.acquire(warm);
    await gate.release({ ...warm, timedOut: null });
    const counter = countDynamoDbRequests(dynamoClient);
    try {
      const asks = Array.from({ length: 10 }, (_, index) => ({ organizationId, endpointId: `whe_${index % 3}`, leaseId: `together-${index}` }));
      const answers = await Promise.all(asks.map((request) => gate.acquire(request)));
      const admitted = asks.filter((_, index) => answers[index]?.admitted);
      // The organization's 8 fill first (no endpoint beyond its 3): the ninth and tenth are refused.
      expect(admitted).toHaveLength(8);
      const writesToAdmit = counter.operations().filter((operation) => operation === 'UpdateItem').length;
      counter.reset();
      await Promise.all(admitted.map((request) => gate.release({ ...request, timedOut: false })));
      expect(counter.operations()).toEqual(['UpdateItem']);
      // Eight answered: each endpoint's credit and the organization's counted from the one write.
      const { Item } = await documentClient.send(
        new GetCommand({ TableName: tableName('inventory'), Key: webhookGateEntity.key({ organizationId }), ConsistentRead: true }),
      );
      const sum = (prefix: RegExp) => Object.entries(Item ?? {}).reduce((total, [name, value]) => total + (prefix.test(name) ? Number(value) : 0), 0);
      expect(sum(/^n_/)).toBe(0);
      expect(sum(/^k_/)).toBe(8);
      expect(sum(/^c_\d+_whe_0$/)).toBe(3);
      // The eight admitted went in one update (the refused two were decided here, with no write, or refused by the table).
      expect(writesToAdmit).toBeLessThanOrEqual(3);
    } finally {
      counter.stop();
    }
  });

  it('an endpoint whose attempt ended fast is in the fast lane: 20 attempts at once from another worker start and end with no write', async () => {
    const organizationId = uniqueOrganization();
    const [first] = workers(1) as [WebhookAttemptGate];
    const opening = { organizationId, endpointId: 'whe_fast', leaseId: 'opening' };
    expect(await first.acquire(opening)).toEqual({ admitted: true });
    await first.release({ ...opening, timedOut: false });
    expect(Number((await gateItem(organizationId))?.f_whe_fast)).toBeGreaterThan(Date.now() + FAST_LANE_MS - 10_000);
    const [other] = workers(1) as [WebhookAttemptGate];
    const counter = countDynamoDbRequests(dynamoClient);
    try {
      const asks = Array.from({ length: 20 }, (_, index) => ({ organizationId, endpointId: 'whe_fast', leaseId: `lane-${index}` }));

      const answers = await Promise.all(asks.map((request) => other.acquire(request)));
      await Promise.all(asks.map((request) => other.release({ ...request, timedOut: false })));

      // Beyond the base shares (4, and 2 for the endpoint), and nothing written: reads only (the item, and the organizations waiting).
      expect(answers.every((answer) => answer.admitted)).toBe(true);
      expect(counter.operations().filter((operation) => operation !== 'GetItem')).toEqual([]);
      expect(counter.operations().length).toBeLessThanOrEqual(2);
    } finally {
      counter.stop();
    }
    const inFlight = Object.entries((await gateItem(organizationId)) ?? {}).filter(([name]) => name.startsWith('n_'));
    expect(inFlight.reduce((total, [, value]) => total + Number(value), 0)).toBe(0);
  });

  it('a fast-lane attempt still under way after FAST_ATTEMPT_MS is counted, and given back when it ends; slow ones that fill the share close the lane', async () => {
    const organizationId = uniqueOrganization();
    const [first, second] = workers(2) as [WebhookAttemptGate, WebhookAttemptGate];
    const opening = { organizationId, endpointId: 'whe_turns', leaseId: 'opening' };
    await first.acquire(opening);
    await first.release({ ...opening, timedOut: false });
    const hanging = Array.from({ length: 6 }, (_, index) => ({ organizationId, endpointId: 'whe_turns', leaseId: `hang-${index}` }));
    expect((await Promise.all(hanging.map((request) => second.acquire(request)))).every((answer) => answer.admitted)).toBe(true);
    expect(countedInFlight(await gateItem(organizationId))).toBe(0);

    await new Promise((resolve) => setTimeout(resolve, FAST_ATTEMPT_MS + 300));

    // Slow now: all six counted, the organization's share (4, and 2 more for the one attempt that ended) full, so the lane is closed to everyone.
    expect(countedInFlight(await gateItem(organizationId))).toBe(6);
    const [third] = workers(1) as [WebhookAttemptGate];
    expect(await third.acquire({ organizationId, endpointId: 'whe_turns', leaseId: 'after' })).toEqual({ admitted: false, reason: 'burst-share' });
    // The others end, then the last times out: the endpoint leaves the lane and starts a run of timeouts.
    await Promise.all(hanging.slice(1).map((request) => second.release({ ...request, timedOut: false })));
    await second.release({ ...(hanging[0] as (typeof hanging)[number]), timedOut: true });
    const item = await gateItem(organizationId);
    expect(countedInFlight(item)).toBe(0);
    expect(item?.f_whe_turns).toBeUndefined();
    expect(Number(item?.t_whe_turns)).toBe(1);
  });

  it('a refused attempt to an endpoint another worker admitted a moment ago waits for its slot rather than being deferred, and gets it when that worker gives one back', async () => {
    const organizationId = uniqueOrganization();
    const [first, second] = workers(2) as [WebhookAttemptGate, WebhookAttemptGate];
    const held = [0, 1].map((index) => ({ organizationId, endpointId: 'whe_new', leaseId: `held-${index}` }));
    for (const request of held) expect(await first.acquire(request)).toEqual({ admitted: true });

    const asked = second.acquire({ organizationId, endpointId: 'whe_new', leaseId: 'beside' });
    await new Promise((resolve) => setTimeout(resolve, 300));
    runSlowly();
    await first.release({ ...(held[0] as (typeof held)[number]), timedOut: false });

    // At the endpoint's base share of 2, and no attempt of its own in the second worker: without the gate item's word that the endpoint was admitted a moment ago, it would be deferred at once.
    expect(await asked).toEqual({ admitted: true });
  });

  it("a new endpoint's first burst within one invocation: the ask beyond its share waits for the asks on their way beside it, and takes the slot one gives back", async () => {
    const organizationId = uniqueOrganization();
    const [gate] = workers(1) as [WebhookAttemptGate];
    const asks = [0, 1, 2].map((index) => ({ organizationId, endpointId: 'whe_burst', leaseId: `burst-${index}` }));
    const answers = asks.map((request) => gate.acquire(request));
    const [first, second] = await Promise.all(answers.slice(0, 2));
    expect([first, second]).toEqual([{ admitted: true }, { admitted: true }]);
    let thirdAnswered = false;
    void answers[2]?.then(() => (thirdAnswered = true));
    await new Promise((resolve) => setTimeout(resolve, 200));
    // At the endpoint's share of 2: not refused (a deferral would bring it back a second later at least), waiting.
    expect(thirdAnswered).toBe(false);
    runSlowly();
    await gate.release({ ...(asks[0] as (typeof asks)[number]), timedOut: false });
    expect(await answers[2]).toEqual({ admitted: true });
    await Promise.all(asks.slice(1).map((request) => gate.release({ ...request, timedOut: false })));
    expect(countedInFlight(await gateItem(organizationId))).toBe(0);
  });

  it('a refused attempt to an endpoint admitted more than a second ago is deferred at once', async () => {
    const organizationId = uniqueOrganization();
    let now = Date.now();
    const clock = () => now;
    const [first, second] = workers(2, { clock }) as [WebhookAttemptGate, WebhookAttemptGate];
    for (const index of [0, 1]) expect(await first.acquire({ organizationId, endpointId: 'whe_old', leaseId: `old-${index}` })).toEqual({ admitted: true });
    now += 1500;
    const startedAt = Date.now();
    expect(await second.acquire({ organizationId, endpointId: 'whe_old', leaseId: 'late' })).toEqual({ admitted: false, reason: 'endpoint-share' });
    expect(Date.now() - startedAt).toBeLessThan(500);
  });

  it('asks refused together and tried alone: one whose write fails gets its error, the others their slots', async () => {
    const organizationId = uniqueOrganization();
    const [gate] = workers(1) as [WebhookAttemptGate];
    const warm = { organizationId, endpointId: 'whe_w', leaseId: 'warm-alone' };
    await gate.acquire(warm);
    await gate.release({ ...warm, timedOut: null });
    const name = 'failOneAlone';
    const endpointsIn = (input: { ExpressionAttributeNames?: Record<string, string> }) =>
      Object.values(input.ExpressionAttributeNames ?? {}).filter((value) => /^e_\d+_whe_/.test(value));
    dynamoClient.middlewareStack.add(
      (next) => async (args) => {
        const input = args.input as { Key?: { pk?: unknown }; ConditionExpression?: string; ExpressionAttributeNames?: Record<string, string> };
        const named = endpointsIn(input);
        if (input.ConditionExpression && named.length > 1) throw new ConditionalCheckFailedException({ message: 'injected: refused together', $metadata: {} });
        if (input.ConditionExpression && named.some((value) => value.endsWith('_whe_bad'))) throw new Error('injected: the write of one ask failed');
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      const [good, bad] = await Promise.allSettled([
        gate.acquire({ organizationId, endpointId: 'whe_good', leaseId: 'good' }),
        gate.acquire({ organizationId, endpointId: 'whe_bad', leaseId: 'bad' }),
      ]);
      expect(good).toEqual({ status: 'fulfilled', value: { admitted: true } });
      expect(bad.status).toBe('rejected');
    } finally {
      dynamoClient.middlewareStack.remove(name);
    }
    // The admitted slot is this worker's to give back: released, the table counts nothing in flight.
    await gate.release({ organizationId, endpointId: 'whe_good', leaseId: 'good', timedOut: null });
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: tableName('inventory'), Key: webhookGateEntity.key({ organizationId }), ConsistentRead: true }),
    );
    expect(
      Object.entries(Item ?? {})
        .filter(([attribute]) => attribute.startsWith('n_'))
        .reduce((total, [, value]) => total + Number(value), 0),
    ).toBe(0);
  });
});
