import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeliveryWorker, STALE_ATTEMPT_MS, type SendResult } from '../../lib/webhooks/domain/deliver.ts';
import { dispatchEvents, newTask, type CommittedEvent, type LiveDispatcher } from '../../lib/webhooks/domain/dispatch.ts';
import type { DeliveryMessage, DeliveryQueue, DeliveryTask, TaskIdentity } from '../../lib/webhooks/domain/ports.ts';
import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { webhookTaskEntity } from '../../lib/webhooks/store/entities.ts';
import { WEBHOOK_QUEUE } from '../../lib/platform/storage/tables.ts';
import { WebhookDeliveriesStore } from '../../lib/webhooks/store/webhook-deliveries-store.ts';
import { WebhookEndpointsStore } from '../../lib/webhooks/store/webhook-endpoints-store.ts';
import { outboxMessage } from '../../lib/webhooks/domain/due-sweep.ts';
import { WebhookOutboxStore } from '../../lib/webhooks/store/webhook-outbox-store.ts';
import { WebhookDeliveryQueue, WebhookEventSource } from '../../lib/webhooks/store/webhook-queue.ts';
import { webhookSecretBox } from '../../lib/webhooks/store/webhook-secrets.ts';
import { createWebhookSender } from '../../lib/webhooks/transport/webhook-sender.ts';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft, tableName } from '../support/events.ts';
import { startReceiver, type Receiver } from '../support/webhook-receiver.ts';

/**
 * Fault tests of the webhook pipeline on the local stack (docs/webhooks.md "Guarantees"): the
 * dispatcher's and the delivery worker's code with real stores and the real queue, crashes
 * injected in the middle of their work, then the retry a stream batch or a queue message gets.
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

class CollectingQueue implements DeliveryQueue {
  readonly sent: DeliveryMessage[] = [];
  send(messages: readonly { message: DeliveryMessage }[]): Promise<void> {
    this.sent.push(...messages.map(({ message }) => message));
    return Promise.resolve();
  }
}

describe('dispatcher crash', () => {
  it('a batch that dies after sending some of its messages, then is retried twice: every (endpoint, event) attempted once', async () => {
    const organizationId = uniqueOrganization();
    const { key } = await createTestKey({ organizationId, scopes: ['all'] });
    const paths = [0, 1, 2].map((index) => `/dispatch-crash/${index}/${randomUUID()}`);
    for (const path of paths) await register(key, path);
    const { events: committed } = await commit(organizationId, [
      eventDraft('item.created'),
      eventDraft('item.updated'),
      eventDraft('stock.changed'),
      eventDraft('low-stock'),
    ]);
    const batch: CommittedEvent[] = committed.map((event, index) => ({
      organizationId,
      sequence: index + 1,
      eventId: event.id,
      type: event.type,
      committedAt: new Date().toISOString(),
    }));
    const queue = new WebhookDeliveryQueue(process.env[WEBHOOK_QUEUE.envVar] as string);
    const real: LiveDispatcher = { endpoints: endpoints(), outbox: new WebhookOutboxStore(tableName('inventory')), queue };
    let sends = 0;
    const crashing: LiveDispatcher = {
      ...real,
      queue: {
        async send(messages) {
          sends += 1;
          if (sends > 1) throw new Error('injected crash: the dispatcher died mid-batch');
          return queue.send(messages);
        },
      },
    };
    await expect(dispatchEvents(crashing, batch)).rejects.toThrow('injected crash');
    // The mapping retries the whole batch (the running server's own dispatcher handles it too).
    await dispatchEvents(real, batch);
    await dispatchEvents(real, batch);
    for (const path of paths) await receiver.waitFor(path, committed.length);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    for (const path of paths) {
      const ids = receiver.deliveries(path).map((delivery) => String(delivery.headers['webhook-id']));
      expect(ids.sort()).toEqual(committed.map((event) => event.id).sort());
      expect(receiver.deliveries(path).every((delivery) => delivery.verifiedWith.length === 1)).toBe(true);
    }
  });
});

describe('delivery worker crash', () => {
  it('dies mid-attempt: the next delivery of its message settles the attempt as failed, the retry succeeds, the log stays consistent', async () => {
    const organizationId = uniqueOrganization();
    const { key } = await createTestKey({ organizationId, scopes: ['all'] });
    const { events: committed } = await commit(organizationId, [eventDraft('item.created')]);
    // Registered after the event: the live dispatcher leaves it alone; this test owns its task.
    const path = `/worker-crash/${randomUUID()}`;
    const endpoint = await register(key, path);
    const event = committed[0];
    if (!event) throw new Error('no event');
    const stored = await events().find(organizationId, 1);
    const task = newTask(
      { organizationId, sequence: 1, eventId: event.id, type: event.type, committedAt: stored?.committedAt ?? new Date().toISOString() },
      endpoint.id,
      'fault-test',
    );
    expect((await deliveries().createTask(task)).created).toBe(true);

    let now = Date.now();
    const queue = new CollectingQueue();
    const sender = createWebhookSender({ allowLoopback: true });
    let dies = true;
    const worker = new DeliveryWorker({
      endpoints: endpoints(),
      deliveries: deliveries(),
      events: events(),
      queue,
      secrets: webhookSecretBox(),
      async send(input): Promise<SendResult> {
        if (dies) throw new Error('injected crash: the worker died mid-attempt');
        return sender.send(input);
      },
      firstRetrySeconds: 0,
      clock: () => new Date(now),
    });
    const message: Extract<DeliveryMessage, { kind: 'attempt' }> = {
      kind: 'attempt',
      organizationId,
      endpointId: endpoint.id,
      sequence: 1,
      origin: 'fault-test',
      attempt: 1,
      dueAt: now,
    };
    await expect(worker.handle(message, false)).rejects.toThrow('injected crash');
    expect((await deliveries().getTask(task))?.inFlight?.number).toBe(1);
    // Redelivered while the attempt might still run: sent on until it must have ended, nothing sent to the endpoint.
    expect(await worker.handle(message, true)).toBe('delayed');
    expect(queue.sent.at(-1)).toMatchObject({
      kind: 'attempt',
      attempt: 1,
      dueAt: Date.parse((await deliveries().getTask(task))?.inFlight?.startedAt ?? '') + STALE_ATTEMPT_MS,
    });
    // Redelivered after the attempt must have ended: settled as failed, attempt 2 queued.
    now += STALE_ATTEMPT_MS + 1000;
    dies = false;
    expect(await worker.handle(message, true)).toBe('settled-interrupted');
    const next = queue.sent.at(-1);
    expect(next).toMatchObject({ kind: 'attempt', attempt: 2 });
    expect(await worker.handle(next as typeof message, false)).toBe('sent');
    // A duplicate of either message changes nothing.
    expect(await worker.handle(next as typeof message, false)).toBe('dropped');
    expect(await worker.handle(message, false)).toBe('dropped');

    const [delivery] = await receiver.waitFor(path, 1);
    expect(delivery?.headers['webhook-id']).toBe(event.id);
    expect(receiver.deliveries(path)).toHaveLength(1);
    const log = await deliveries().attemptsPage(organizationId, endpoint.id, {}, undefined, 10);
    expect(log.items.map((entry) => [entry.attempt, entry.status])).toEqual([
      [2, 'succeeded'],
      [1, 'failed'],
    ]);
    expect(log.items[1]?.error).toMatch(/interrupted/);
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'succeeded', attempts: 2, inFlight: null });
  });
});

/** The real store, dying once right before the task's next state is written (after the log entry got the outcome): a retry's conditional write or an end's put. */
/** The task item as stored, without the store's reading of its log entry. */
async function storedTask(task: TaskIdentity): Promise<DeliveryTask | undefined> {
  const { Item } = await documentClient.send(new GetCommand({ TableName: tableName('inventory'), Key: webhookTaskEntity.key(task), ConsistentRead: true }));
  return Item?.task as DeliveryTask | undefined;
}

class DiesBeforeTaskSettles extends WebhookDeliveriesStore {
  dies = true;
  override async finishTask(...args: Parameters<WebhookDeliveriesStore['finishTask']>): Promise<boolean> {
    this.dieOnce();
    return super.finishTask(...args);
  }
  protected override async endTask(...args: Parameters<WebhookDeliveriesStore['endTask']>): Promise<void> {
    this.dieOnce();
    return super.endTask(...args);
  }
  private dieOnce(): void {
    if (!this.dies) return;
    this.dies = false;
    throw new Error('injected crash: the worker died between the outcome and the task');
  }
}

describe('delivery worker crash between the outcome and the task', () => {
  async function taskOfOneEvent(prefix: string, answer?: number) {
    const organizationId = uniqueOrganization();
    const { key } = await createTestKey({ organizationId, scopes: ['all'] });
    const { events: committed } = await commit(organizationId, [eventDraft('item.created')]);
    const path = `/${prefix}/${randomUUID()}`;
    const endpoint = await register(key, path);
    if (answer !== undefined) receiver.answer(path, { status: answer });
    const event = committed[0];
    const stored = await events().find(organizationId, 1);
    if (!event || !stored) throw new Error('no event');
    const task = newTask({ organizationId, sequence: 1, eventId: event.id, type: event.type, committedAt: stored.committedAt }, endpoint.id, 'fault-test');
    expect((await deliveries().createTask(task)).created).toBe(true);
    const message: Extract<DeliveryMessage, { kind: 'attempt' }> = {
      kind: 'attempt',
      organizationId,
      endpointId: endpoint.id,
      sequence: 1,
      origin: 'fault-test',
      attempt: 1,
      dueAt: Date.now(),
    };
    return { organizationId, endpoint, path, task, message };
  }

  function workerWith(store: WebhookDeliveriesStore, queue: CollectingQueue, clock: () => Date) {
    return new DeliveryWorker({
      endpoints: endpoints(),
      deliveries: store,
      events: events(),
      queue,
      secrets: webhookSecretBox(),
      send: createWebhookSender({ allowLoopback: true }).send,
      firstRetrySeconds: 0,
      clock,
    });
  }

  it('a success recorded in the log: the next delivery of the message ends the task as succeeded, sends nothing more', async () => {
    const { organizationId, endpoint, path, task, message } = await taskOfOneEvent('dies-after-success');
    let now = Date.now();
    const queue = new CollectingQueue();
    const crashing = new DiesBeforeTaskSettles(tableName('inventory'));
    await expect(workerWith(crashing, queue, () => new Date(now)).handle(message, false)).rejects.toThrow('injected crash');
    // Stored, the task still holds the claim; read, its log entry ends it.
    expect((await storedTask(task))?.inFlight?.number).toBe(1);
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'succeeded', inFlight: null });
    now += STALE_ATTEMPT_MS + 1000;
    expect(await workerWith(deliveries(), queue, () => new Date(now)).handle(message, true)).toBe('settled-interrupted');
    expect(await storedTask(task)).toMatchObject({ status: 'succeeded', attempts: 1, inFlight: null, nextAttemptAt: null });
    expect(queue.sent).toEqual([]);
    expect(receiver.deliveries(path)).toHaveLength(1);
    const log = await deliveries().attemptsPage(organizationId, endpoint.id, {}, undefined, 10);
    expect(log.items.map((entry) => [entry.attempt, entry.status, entry.responseStatus])).toEqual([[1, 'succeeded', 200]]);
  });

  it("a live first attempt's success writes no task end: read, the task is ended; a copy of the message is dropped; the outbox sweep owes it nothing", async () => {
    const { organizationId, endpoint, path, task } = await taskOfOneEvent('ends-with-entry');
    const event = { eventId: task.eventId, type: task.eventType, committedAt: task.committedAt };
    const live: Extract<DeliveryMessage, { kind: 'attempt' }> = {
      kind: 'attempt',
      organizationId,
      endpointId: endpoint.id,
      sequence: 1,
      origin: 'live',
      attempt: 1,
      dueAt: Date.now(),
      event,
    };
    const identity = { organizationId, endpointId: endpoint.id, sequence: 1, origin: 'live' };
    const queue = new CollectingQueue();
    const worker = workerWith(deliveries(), queue, () => new Date());

    expect(await worker.handle(live, false)).toBe('sent');

    expect(await storedTask(identity)).toMatchObject({ status: 'pending', attempts: 1, inFlight: { number: 1 } });
    expect(await deliveries().getTask(identity)).toMatchObject({ status: 'succeeded', attempts: 1, inFlight: null, nextAttemptAt: null });
    expect(await worker.handle(live, true)).toBe('dropped');
    expect(queue.sent).toEqual([]);
    expect(receiver.deliveries(path)).toHaveLength(1);
    const delivery = { event: { organizationId, sequence: 1, ...event }, endpointId: endpoint.id };
    const [owed] = await new WebhookOutboxStore(tableName('inventory')).tasksOf({ organizationId, firstSequence: 1, lastSequence: 1, deliveries: [delivery] });
    expect(owed?.task).toMatchObject({ status: 'succeeded', inFlight: null });
    expect(outboxMessage(delivery, owed?.task, Date.now())).toBeUndefined();
  });

  it('a 410 recorded in the log: the next delivery ends the task and disables the endpoint, as its worker would have', async () => {
    const { organizationId, endpoint, task, message } = await taskOfOneEvent('dies-after-gone', 410);
    let now = Date.now();
    const queue = new CollectingQueue();
    await expect(workerWith(new DiesBeforeTaskSettles(tableName('inventory')), queue, () => new Date(now)).handle(message, false)).rejects.toThrow(
      'injected crash',
    );
    expect((await endpoints().get(organizationId, endpoint.id))?.endpoint.status).toBe('enabled');
    now += STALE_ATTEMPT_MS + 1000;
    expect(await workerWith(deliveries(), queue, () => new Date(now)).handle(message, true)).toBe('settled-interrupted');
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'failed', inFlight: null, nextAttemptAt: null });
    expect((await endpoints().get(organizationId, endpoint.id))?.endpoint).toMatchObject({ status: 'disabled', disabledReason: 'gone' });
    expect(queue.sent).toEqual([]);
  });

  it('a failure recorded in the log: the next delivery schedules the retry the log names, once', async () => {
    const { organizationId, endpoint, task, message } = await taskOfOneEvent('dies-after-failure', 500);
    let now = Date.now();
    const queue = new CollectingQueue();
    const crashing = new DiesBeforeTaskSettles(tableName('inventory'));
    await expect(workerWith(crashing, queue, () => new Date(now)).handle(message, false)).rejects.toThrow('injected crash');
    const [recorded] = (await deliveries().attemptsPage(organizationId, endpoint.id, {}, undefined, 10)).items;
    expect(recorded).toMatchObject({ attempt: 1, status: 'failed', responseStatus: 500 });
    now += STALE_ATTEMPT_MS + 1000;
    const worker = workerWith(deliveries(), queue, () => new Date(now));
    expect(await worker.handle(message, true)).toBe('settled-interrupted');
    expect(await deliveries().getTask(task)).toMatchObject({ status: 'pending', attempts: 1, inFlight: null, nextAttemptAt: recorded?.nextAttemptAt });
    expect(queue.sent).toEqual([expect.objectContaining({ kind: 'attempt', attempt: 2, dueAt: Date.parse(recorded?.nextAttemptAt ?? '') })]);
    // A duplicate of the message changes nothing more.
    expect(await worker.handle(message, false)).toBe('dropped');
    expect(queue.sent).toHaveLength(1);
    const log = await deliveries().attemptsPage(organizationId, endpoint.id, {}, undefined, 10);
    expect(log.items.map((entry) => [entry.attempt, entry.status])).toEqual([[1, 'failed']]);
  });
});
