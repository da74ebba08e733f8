import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker } from '../../lib/webhooks/domain/deliver.ts';
import { dispatchEvents, newTask, type CommittedEvent, type LiveDispatcher } from '../../lib/webhooks/domain/dispatch.ts';
import { sweepDueDeliveries, type DueSweepPorts, type DueSweepResult } from '../../lib/webhooks/domain/due-sweep.ts';
import { MESSAGE_LOST_AFTER_MS } from '../../lib/webhooks/domain/sweep-at.ts';
import { WebhookCommands } from '../../lib/webhooks/domain/commands.ts';
import type { DeliveryQueue } from '../../lib/webhooks/domain/ports.ts';
import { commitReplayRequest } from '../../lib/webhooks/domain/replay-request.ts';
import { WEBHOOK_QUEUE } from '../../lib/platform/storage/tables.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { WebhookDeliveriesStore } from '../../lib/webhooks/store/webhook-deliveries-store.ts';
import { dueSweepPortsOf } from '../../lib/webhooks/store/webhook-due-sweep-store.ts';
import { WebhookOutboxStore } from '../../lib/webhooks/store/webhook-outbox-store.ts';
import { WebhookEndpointsStore, WebhookReplaysStore } from '../../lib/webhooks/store/webhook-endpoints-store.ts';
import { WebhookDeliveryQueue, WebhookEventSource } from '../../lib/webhooks/store/webhook-queue.ts';
import { webhookSecretBox } from '../../lib/webhooks/store/webhook-secrets.ts';
import { createWebhookSender } from '../../lib/webhooks/transport/webhook-sender.ts';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft, tableName, transactionWriter, writeContext } from '../support/events.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

/**
 * The due-task sweep on the local stack (docs/webhooks.md "The due-task sweep"): a queue send
 * that fails after its outbox item, task or replay committed leaves it with no message; the sweep, once the
 * message counts as lost, sends it again, and the running server's delivery worker delivers each
 * event exactly once. The sweep runs here with its clock moved past the grace, so the test does
 * not wait six minutes; it is restricted to this test's tenant, so other suites' tasks are left
 * to the server's own sweep.
 */

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startReceiver();
});
afterAll(async () => {
  await receiver.close();
});

const endpoints = () => new WebhookEndpointsStore(tableName('inventory'), tableName('audit'));
const deliveries = () => new WebhookDeliveriesStore(tableName('inventory'));
const events = () => new WebhookEventSource(tableName('events'));
const realQueue = () => new WebhookDeliveryQueue(process.env[WEBHOOK_QUEUE.envVar] as string);
const failingQueue: DeliveryQueue = { send: () => Promise.reject(new Error('injected: SQS refused the send')) };

async function register(key: string, path: string): Promise<{ id: string; secret: string }> {
  const response = await callApi('/v1/webhooks/endpoints', {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify({ url: receiver.url(path) }),
  });
  expect(response.status).toBe(201);
  const created = (await response.json()) as { id: string; secret: string };
  receiver.trust(path, created.secret);
  return created;
}

/** The sweep as the scheduled function runs it, on this tenant's entries, `aheadMs` in the future. */
function sweepOf(organizationId: string, aheadMs = MESSAGE_LOST_AFTER_MS + 5000): () => Promise<DueSweepResult> {
  const ports = dueSweepPortsOf(tableName('inventory'), realQueue());
  const ofTenant = <T extends { item: { organizationId: string } }>(entries: T[]) => entries.filter((entry) => entry.item.organizationId === organizationId);
  const filtered: DueSweepPorts = {
    ...ports,
    dueTasks: async (now) => ofTenant(await ports.dueTasks(now, 16_000)),
    stalledReplays: async (now) => ofTenant(await ports.stalledReplays(now, 16_000)),
    dueOutbox: async (now) => ofTenant(await ports.dueOutbox(now, 16_000)),
  };
  return () => sweepDueDeliveries(filtered, new Date(Date.now() + aheadMs));
}

const settle = (ms = 2500) => new Promise((resolve) => setTimeout(resolve, ms));

/** A tenant whose events committed before its endpoint: the server's own dispatcher leaves them alone, so the test owns their tasks. */
async function tenantWithEvents(count: number, name: string) {
  const organizationId = uniqueOrganization();
  const { key } = await createTestKey({ organizationId, scopes: ['all'] });
  const { events: committed } = await commit(
    organizationId,
    Array.from({ length: count }, () => eventDraft('item.created')),
  );
  const path = `/${name}/${randomUUID()}`;
  const endpoint = await register(key, path);
  return { organizationId, key, committed, path, endpoint };
}

describe('due-task sweep', () => {
  it('the dispatcher wrote its outbox, then its send failed: the sweep queues each delivery from the outbox, each event arrives once, and the item goes', async () => {
    const { organizationId, committed, path } = await tenantWithEvents(3, 'lost-dispatch');
    const batch: CommittedEvent[] = committed.map((event, index) => ({
      organizationId,
      sequence: index + 1,
      eventId: event.id,
      type: event.type,
      committedAt: new Date().toISOString(),
    }));
    const dispatcher: LiveDispatcher = {
      // As if the endpoint had been registered before the events: the dispatcher's own code path.
      endpoints: { all: async (org) => (await endpoints().all(org)).map((stored) => ({ ...stored, createdAfterSequence: 0 })) },
      outbox: new WebhookOutboxStore(tableName('inventory')),
      queue: failingQueue,
    };
    await expect(dispatchEvents(dispatcher, batch)).rejects.toThrow('injected');
    await settle(1500);
    expect(receiver.deliveries(path)).toHaveLength(0);

    const sweep = sweepOf(organizationId);
    expect((await sweep()).outbox).toBe(3);
    // A second sweep (another run, or one racing it) finds the item leased: nothing sent twice.
    expect((await sweep()).outbox).toBe(0);
    await receiver.waitFor(path, 3);
    await settle();
    const ids = receiver.deliveries(path).map((delivery) => String(delivery.headers['webhook-id']));
    expect(ids.sort()).toEqual(committed.map((event) => event.id).sort());
    // Past the lease, the sweep finds every delivery's task: nothing queued, and the item is deleted.
    expect(await sweepOf(organizationId, 2 * MESSAGE_LOST_AFTER_MS + 10_000)()).toMatchObject({ tasks: 0, outbox: 0, errors: 0 });
    const later = new Date(Date.now() + 4 * MESSAGE_LOST_AFTER_MS);
    expect(
      (await dueSweepPortsOf(tableName('inventory'), realQueue()).dueOutbox(later, 16_000)).filter((entry) => entry.item.organizationId === organizationId),
    ).toEqual([]);
    expect(receiver.deliveries(path)).toHaveLength(3);
  });

  it('a message lost after the dispatch (a dead letter): the sweep queues only the delivery that has no task', async () => {
    const { organizationId, committed, path } = await tenantWithEvents(2, 'lost-message');
    const batch: CommittedEvent[] = committed.map((event, index) => ({
      organizationId,
      sequence: index + 1,
      eventId: event.id,
      type: event.type,
      committedAt: new Date().toISOString(),
    }));
    // The first event's message reaches the worker; the second's is lost.
    const queue = realQueue();
    const losingSecond: DeliveryQueue = {
      send: (messages) => queue.send(messages.filter(({ message }) => message.kind !== 'attempt' || message.sequence !== 2)),
    };
    const dispatcher: LiveDispatcher = {
      endpoints: { all: async (org) => (await endpoints().all(org)).map((stored) => ({ ...stored, createdAfterSequence: 0 })) },
      outbox: new WebhookOutboxStore(tableName('inventory')),
      queue: losingSecond,
    };
    expect(await dispatchEvents(dispatcher, batch)).toBe(2);
    await receiver.waitFor(path, 1);
    await settle(1500);

    expect((await sweepOf(organizationId)()).outbox).toBe(1);
    await receiver.waitFor(path, 2);
    await settle();
    expect(receiver.deliveries(path).map((delivery) => String(delivery.headers['webhook-id']))).toEqual(committed.map((event) => event.id));
  });

  it('a live first attempt claimed and then lost (its worker died, its message dead-lettered): the outbox sends the attempt under way again; the item goes once the task ends', async () => {
    const { organizationId, committed, path, endpoint } = await tenantWithEvents(1, 'lost-claimed');
    const event = committed[0];
    if (!event) throw new Error('no event');
    const committedEvent: CommittedEvent = { organizationId, sequence: 1, eventId: event.id, type: event.type, committedAt: new Date().toISOString() };
    await new WebhookOutboxStore(tableName('inventory')).record(organizationId, [{ event: committedEvent, endpointId: endpoint.id }]);
    const task = newTask(committedEvent, endpoint.id, 'live');
    const attempt = { attemptId: `wha_outbox${Date.now()}`, number: 1, startedAt: new Date().toISOString() };
    const claim = await deliveries().claimAttempt(task, attempt, task);
    if (!claim.claimed) throw new Error('not claimed');

    // The claimed task is not in the due index: the outbox item stands for it.
    expect(await sweepOf(organizationId)()).toMatchObject({ tasks: 0, outbox: 1 });
    await settle();
    // The server's worker got the attempt under way, and its claim refused it: nothing sent.
    expect(receiver.deliveries(path)).toHaveLength(0);
    expect(await deliveries().getTask(task)).toMatchObject({ attempts: 1, inFlight: { attemptId: attempt.attemptId } });

    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'succeeded', responseStatus: 204, durationMs: 5, error: null, nextAttemptAt: null },
        { status: 'succeeded', nextAttemptAt: null },
        'claimant',
      ),
    ).toBe(true);
    expect(await sweepOf(organizationId, 2 * MESSAGE_LOST_AFTER_MS + 10_000)()).toMatchObject({ tasks: 0, outbox: 0, errors: 0 });
    const later = new Date(Date.now() + 4 * MESSAGE_LOST_AFTER_MS);
    expect(
      (await dueSweepPortsOf(tableName('inventory'), realQueue()).dueOutbox(later, 16_000)).filter((entry) => entry.item.organizationId === organizationId),
    ).toEqual([]);
  });

  it("an attempt failed and settled, then the next attempt's send failed: the sweep sends it and the event arrives once", async () => {
    const { organizationId, committed, path, endpoint } = await tenantWithEvents(1, 'lost-retry');
    const event = committed[0];
    if (!event) throw new Error('no event');
    receiver.answer(path, (_delivery, index) => ({ status: index === 0 ? 500 : 204 }));
    const stored = await events().find(organizationId, 1);
    const task = newTask(
      { organizationId, sequence: 1, eventId: event.id, type: event.type, committedAt: stored?.committedAt ?? new Date().toISOString() },
      endpoint.id,
      'live',
    );
    expect((await deliveries().createTask(task)).created).toBe(true);
    const sender = createWebhookSender({ allowLoopback: true });
    const worker = new DeliveryWorker({
      endpoints: endpoints(),
      deliveries: deliveries(),
      events: events(),
      queue: failingQueue,
      secrets: webhookSecretBox(),
      send: (input) => sender.send(input),
      firstRetrySeconds: 0,
    });
    // The attempt fails (500), settles with its retry due, and the retry's send is refused.
    await expect(
      worker.handle({ kind: 'attempt', organizationId, endpointId: endpoint.id, sequence: 1, origin: 'live', attempt: 1, dueAt: Date.now() }, false),
    ).rejects.toThrow('injected');
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'pending', attempts: 1, inFlight: null });
    await settle(1500);
    expect(receiver.deliveries(path)).toHaveLength(1);

    expect((await sweepOf(organizationId)()).tasks).toBe(1);
    await receiver.waitFor(path, 2);
    await settle();
    expect(receiver.deliveries(path).map((delivery) => delivery.headers['webhook-id'])).toEqual([event.id, event.id]);
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'succeeded', attempts: 2, inFlight: null });
    const log = await deliveries().attemptsPage(organizationId, endpoint.id, {}, undefined, 10);
    expect(log.items.map((entry) => [entry.attempt, entry.status])).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
  });

  it('the sweep finds a task whose attempt is under way (the claim leaves its sweep-at): its message is refused by the claim, nothing is sent twice', async () => {
    const { organizationId, committed, path, endpoint } = await tenantWithEvents(1, 'swept-in-flight');
    const event = committed[0];
    if (!event) throw new Error('no event');
    const task = newTask({ organizationId, sequence: 1, eventId: event.id, type: event.type, committedAt: new Date().toISOString() }, endpoint.id, 'live');
    expect((await deliveries().createTask(task)).created).toBe(true);
    // A worker claims the attempt and is still sending it when the sweep runs.
    const attempt = { attemptId: `wha_swept${Date.now()}`, number: 1, startedAt: new Date().toISOString() };
    const claim = await deliveries().claimAttempt(task, attempt);
    if (!claim.claimed) throw new Error('not claimed');

    expect((await sweepOf(organizationId)()).tasks).toBe(1);
    await settle();
    // The server's worker got the re-sent message, and its claim refused it: nothing sent.
    expect(receiver.deliveries(path)).toHaveLength(0);
    expect(await deliveries().getTask(task)).toMatchObject({ attempts: 1, inFlight: { attemptId: attempt.attemptId } });
    // The first worker settles its attempt; the task leaves the due index.
    expect(
      await deliveries().settleAttempt(
        claim.task,
        attempt,
        { status: 'succeeded', responseStatus: 204, durationMs: 5, error: null, nextAttemptAt: null },
        { status: 'succeeded', nextAttemptAt: null },
      ),
    ).toBe(true);
    expect((await sweepOf(organizationId, 2 * MESSAGE_LOST_AFTER_MS)()).tasks).toBe(0);
  });

  it("a replay committed, then its first page's send failed: the sweep sends it and the replayed events arrive once", async () => {
    const { organizationId, committed, path, endpoint } = await tenantWithEvents(4, 'lost-replay');
    const commands = new WebhookCommands<StoreWrite>({
      endpoints: endpoints(),
      replays: new WebhookReplaysStore(tableName('inventory')),
      events: events(),
      secrets: webhookSecretBox(),
      allowLoopback: true,
    });
    const plan = await commands.replay(organizationId, endpoint.id, { afterEventId: committed[0]?.id ?? '' });
    const logged: string[] = [];
    await commitReplayRequest({ queue: failingQueue, log: (message) => logged.push(message) }, plan.result, () =>
      transactionWriter().run(writeContext(organizationId), () => Promise.resolve(plan)),
    );
    expect(logged).toHaveLength(1);
    await settle(1500);
    expect(receiver.deliveries(path)).toHaveLength(0);

    const sweep = sweepOf(organizationId);
    expect((await sweep()).replays).toBe(1);
    expect((await sweep()).replays).toBe(0);
    await receiver.waitFor(path, 3);
    await settle();
    const ids = receiver.deliveries(path).map((delivery) => String(delivery.headers['webhook-id']));
    expect(ids.sort()).toEqual(
      committed
        .slice(1)
        .map((event) => event.id)
        .sort(),
    );
    expect((await new WebhookReplaysStore(tableName('inventory')).get(organizationId, plan.result.id))?.status).toBe('done');
  });
});
