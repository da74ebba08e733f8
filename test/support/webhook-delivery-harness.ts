import { randomUUID } from 'node:crypto';
import { CreateQueueCommand, DeleteQueueCommand, SQSClient } from '@aws-sdk/client-sqs';
import { expect } from 'vitest';
import { startQueuePoller, type QueuePoller } from '../../local/sqs-poller.ts';
import { DeliveryWorker } from '../../lib/webhooks/domain/deliver.ts';
import { newTask } from '../../lib/webhooks/domain/dispatch.ts';
import type { FairShareLimits } from '../../lib/webhooks/domain/fair-share.ts';
import type { DeliveryMessage } from '../../lib/webhooks/domain/ports.ts';
import { createDeliveryQueueHandler } from '../../lib/webhooks/delivery-queue-handler.ts';
import { WORKERS, type QueueWorkerDefinition } from '../../lib/app/workers.ts';
import { GateMemory, WebhookAttemptGate } from '../../lib/webhooks/store/webhook-attempt-gate.ts';
import { WebhookDeliveriesStore } from '../../lib/webhooks/store/webhook-deliveries-store.ts';
import { WebhookEndpointsStore, WebhookReplaysStore } from '../../lib/webhooks/store/webhook-endpoints-store.ts';
import { CoalescingDeliveryQueue, WebhookDeliveryQueue, WebhookEventSource } from '../../lib/webhooks/store/webhook-queue.ts';
import { WebhookReplayLoad } from '../../lib/webhooks/store/webhook-replay-load.ts';
import { webhookSecretBox } from '../../lib/webhooks/store/webhook-secrets.ts';
import { createWebhookSender } from '../../lib/webhooks/transport/webhook-sender.ts';
import { callApi, createTestKey, uniqueOrganization } from './api.ts';
import { commit, eventDraft, tableName, typeAt } from './events.ts';
import type { Receiver } from './webhook-receiver.ts';

/**
 * The delivery worker's real handler (lib/webhooks/delivery-queue-handler.ts) on its own queue of the local stack,
 * polled as the deliverWebhooks mapping is (20 batches of 10 at once, each invocation with its
 * own stores and gate, as functions/workers/deliver-webhooks.ts builds them), with a short attempt
 * deadline, so fairness tests run in seconds and the test server's own worker never sees their
 * messages. Tenants' events are committed before their endpoints exist, so the test server's
 * dispatcher queues none of them; the tests create the tasks and queue their messages here.
 */

export interface Tenant {
  organizationId: string;
  /** The committed events in feed order. */
  events: { sequence: number; eventId: string; type: string; committedAt: string }[];
}

export async function tenantWithEvents(count: number): Promise<Tenant> {
  const organizationId = uniqueOrganization();
  const events: Tenant['events'] = [];
  for (let start = 0; start < count; start += 50) {
    const drafts = Array.from({ length: Math.min(50, count - start) }, (_, index) => eventDraft(typeAt(start + index)));
    const { events: committed } = await commit(organizationId, drafts);
    committed.forEach((event, index) =>
      events.push({ sequence: start + index + 1, eventId: event.id, type: event.type, committedAt: new Date().toISOString() }),
    );
  }
  return { organizationId, events };
}

export async function registerEndpoints(tenant: Tenant, receiver: Receiver, paths: string[]): Promise<string[]> {
  const { key } = await createTestKey({ organizationId: tenant.organizationId, scopes: ['all'] });
  return Promise.all(
    paths.map(async (path) => {
      const response = await callApi('/v1/webhooks/endpoints', {
        method: 'POST',
        key,
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ url: receiver.url(path) }),
      });
      expect(response.status).toBe(201);
      return ((await response.json()) as { id: string }).id;
    }),
  );
}

export interface DeliveryHarness {
  /** Creates the tasks of (endpoint, event) and queues their first attempts. */
  queueDeliveries(tenant: Tenant, deliveries: { endpointId: string; eventIndex: number }[]): Promise<void>;
  /** Starts polling the queue (a backlog queued first is then all waiting). */
  startPolling(): void;
  stop(): Promise<void>;
}

export async function startDeliveryHarness(options: { attemptTimeoutMs: number; limits?: FairShareLimits; fair: boolean }): Promise<DeliveryHarness> {
  const sqs = new SQSClient({});
  const { QueueUrl } = await sqs.send(
    new CreateQueueCommand({ QueueName: `webhook-fairness-${randomUUID().slice(0, 8)}`, Attributes: { VisibilityTimeout: '60' } }),
  );
  const queueUrl = QueueUrl as string;
  const inventory = tableName('inventory');
  const endpoints = new WebhookEndpointsStore(inventory, tableName('audit'));
  const events = new WebhookEventSource(tableName('events'));
  const queue = new WebhookDeliveryQueue(queueUrl);
  const sender = createWebhookSender({ allowLoopback: true, timeoutMs: options.attemptTimeoutMs });
  const gateMemory = new GateMemory();
  const secrets = webhookSecretBox();
  // As functions/workers/deliver-webhooks.ts: clients and caches here, batchers per invocation.
  const handler = createDeliveryQueueHandler(() => {
    const deliveries = new WebhookDeliveriesStore(inventory);
    const worker = new DeliveryWorker({
      endpoints,
      deliveries,
      events,
      queue: new CoalescingDeliveryQueue(queue),
      secrets,
      send: (input) => sender.send(input),
      // Failed attempts come back after the test.
      firstRetrySeconds: 600,
      attemptDeadlineMs: options.attemptTimeoutMs,
      ...(options.fair
        ? {
            gate: new WebhookAttemptGate(inventory, {
              leaseMs: options.attemptTimeoutMs + 5000,
              memory: gateMemory,
              ...(options.limits ? { limits: options.limits } : {}),
            }),
          }
        : {}),
    });
    return { worker, replay: { replays: new WebhookReplaysStore(inventory), endpoints, events, deliveries, queue, load: new WebhookReplayLoad(inventory) } };
  });
  const setup = new WebhookDeliveriesStore(inventory);
  const definition = WORKERS.find((candidate): candidate is QueueWorkerDefinition => candidate.id === 'deliverWebhooks');
  if (!definition) throw new Error('lib/app/workers.ts has no deliverWebhooks worker');
  let poller: QueuePoller | undefined;

  return {
    async queueDeliveries(tenant, planned) {
      const tasks = planned.map(({ endpointId, eventIndex }) => {
        const event = tenant.events[eventIndex];
        if (!event) throw new Error(`no event ${eventIndex}`);
        return newTask({ organizationId: tenant.organizationId, ...event }, endpointId, 'live');
      });
      for (let start = 0; start < tasks.length; start += 32) await Promise.all(tasks.slice(start, start + 32).map((task) => setup.createTask(task)));
      const messages = tasks.map((task): { message: DeliveryMessage; delaySeconds: number } => ({
        message: {
          kind: 'attempt',
          organizationId: task.organizationId,
          endpointId: task.endpointId,
          sequence: task.sequence,
          origin: task.origin,
          attempt: 1,
          dueAt: Date.now(),
        },
        delaySeconds: 0,
      }));
      for (let start = 0; start < messages.length; start += 100)
        await Promise.all(Array.from({ length: 10 }, (_, chunk) => queue.send(messages.slice(start + chunk * 10, start + chunk * 10 + 10))));
    },
    startPolling() {
      poller ??= startQueuePoller({ worker: definition, queueUrl, client: sqs, loadHandler: () => Promise.resolve(handler), log: () => undefined });
    },
    async stop() {
      await poller?.stop();
      await sqs.send(new DeleteQueueCommand({ QueueUrl: queueUrl }));
      sqs.destroy();
    },
  };
}
