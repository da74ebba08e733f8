import { subscribes, type StoredEndpoint } from './endpoint.ts';
import type { DeliveryMessage, DeliveryQueue, DeliveryStorage, DeliveryTask, EndpointStorage } from './ports.ts';

/**
 * From committed events to delivery tasks (docs/webhooks.md "Delivery"): per event, the tenant's
 * enabled endpoints that subscribe to its type and were created before it get one task each, by
 * a conditional put, so a retried batch (the dispatcher's stream batch, a replay's page) never
 * doubles a delivery. Every task that has not been attempted yet gets a queue message, also when
 * it existed already: a run that died between the put and the send is repaired by its retry, and
 * the worker's conditional claim of each attempt drops the duplicate message.
 */

export interface CommittedEvent {
  organizationId: string;
  sequence: number;
  eventId: string;
  type: string;
  committedAt: string;
}

export interface TaskPlanner {
  endpoints: Pick<EndpointStorage, 'all'>;
  deliveries: Pick<DeliveryStorage, 'createTask'>;
  queue: DeliveryQueue;
}

const SQS_BATCH = 10;

function attemptMessage(task: DeliveryTask, now: number): DeliveryMessage {
  return { kind: 'attempt', organizationId: task.organizationId, endpointId: task.endpointId, sequence: task.sequence, origin: task.origin, attempt: 1, dueAt: now };
}

export function newTask(event: CommittedEvent, endpointId: string, origin: string): DeliveryTask {
  return {
    organizationId: event.organizationId,
    endpointId,
    sequence: event.sequence,
    origin,
    eventId: event.eventId,
    eventType: event.type,
    committedAt: event.committedAt,
    attempts: 0,
    status: 'pending',
    nextAttemptAt: null,
    inFlight: null,
  };
}

/** Creates (once) the task of each (endpoint, event) and queues what was not attempted yet. */
/** Delivery-task puts one dispatcher call has in flight at most. */
const CONCURRENT_TASK_PUTS = 50;

export async function createTasks(planner: TaskPlanner, pairs: readonly { event: CommittedEvent; endpointId: string; origin: string }[], now: () => number = Date.now): Promise<number> {
  const messages: DeliveryMessage[] = [];
  // A stream record holds a whole transaction's events (an import chunk's can be hundreds), so the
  // puts go a bounded number at a time rather than all at once.
  for (let start = 0; start < pairs.length; start += CONCURRENT_TASK_PUTS) {
    await Promise.all(
      pairs.slice(start, start + CONCURRENT_TASK_PUTS).map(async ({ event, endpointId, origin }) => {
        const task = newTask(event, endpointId, origin);
        const put = await planner.deliveries.createTask(task);
        if (put.created || (put.existing.status === 'pending' && put.existing.attempts === 0)) messages.push(attemptMessage(task, now()));
      }),
    );
  }
  for (let start = 0; start < messages.length; start += SQS_BATCH) {
    await planner.queue.send(messages.slice(start, start + SQS_BATCH).map((message) => ({ message, delaySeconds: 0 })));
  }
  return messages.length;
}

/** The endpoints an event goes to, live: enabled, subscribed, and created before the event committed. */
export function liveRecipients(endpoints: readonly StoredEndpoint[], event: CommittedEvent): StoredEndpoint[] {
  return endpoints.filter(({ endpoint, createdAfterSequence }) => endpoint.status === 'enabled' && createdAfterSequence < event.sequence && subscribes(endpoint, event.type));
}

/** The dispatcher's work for one stream batch: events grouped by tenant, each tenant's endpoints read once. */
export async function dispatchEvents(planner: TaskPlanner, events: readonly CommittedEvent[], now: () => number = Date.now): Promise<number> {
  const byTenant = new Map<string, CommittedEvent[]>();
  for (const event of events) {
    const ofTenant = byTenant.get(event.organizationId);
    if (ofTenant) ofTenant.push(event);
    else byTenant.set(event.organizationId, [event]);
  }
  let queued = 0;
  await Promise.all(
    [...byTenant].map(async ([organizationId, tenantEvents]) => {
      const endpoints = await planner.endpoints.all(organizationId);
      if (endpoints.length === 0) return;
      const pairs = tenantEvents.flatMap((event) => liveRecipients(endpoints, event).map(({ endpoint }) => ({ event, endpointId: endpoint.id, origin: 'live' })));
      queued += await createTasks(planner, pairs, now);
    }),
  );
  return queued;
}
