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

/** Delivery-task puts one dispatcher call has in flight at most. */
const CONCURRENT_TASK_PUTS = 50;

/**
 * Creates (once) the task of each (endpoint, event) and queues what was not attempted yet. A
 * stream record holds a whole transaction's events (an import chunk's can be hundreds), so the
 * puts go a bounded number at a time; each task's message is sent as soon as ten are ready (one
 * SendMessageBatch), while the next puts run, so the first attempts start before the last tasks
 * are written.
 */
export async function createTasks(planner: TaskPlanner, pairs: readonly { event: CommittedEvent; endpointId: string; origin: string }[], now: () => number = Date.now): Promise<number> {
  const ready: DeliveryMessage[] = [];
  const sends: Promise<void>[] = [];
  let queued = 0;
  const flush = () => {
    const batch = ready.splice(0, SQS_BATCH);
    queued += batch.length;
    const send = planner.queue.send(batch.map((message) => ({ message, delaySeconds: 0 })));
    // Handled at the end (allSettled); until then a rejection must not count as unhandled.
    send.catch(() => undefined);
    sends.push(send);
  };
  let next = 0;
  const putNext = async (): Promise<void> => {
    while (next < pairs.length) {
      const pair = pairs[next];
      next += 1;
      if (!pair) break;
      const task = newTask(pair.event, pair.endpointId, pair.origin);
      const put = await planner.deliveries.createTask(task);
      if (put.created || (put.existing.status === 'pending' && put.existing.attempts === 0)) {
        ready.push(attemptMessage(task, now()));
        if (ready.length >= SQS_BATCH) flush();
      }
    }
  };
  // Every send is awaited, also when a put fails: the batch fails only once nothing is left running.
  const puts = await Promise.allSettled(Array.from({ length: Math.min(CONCURRENT_TASK_PUTS, pairs.length) }, putNext));
  while (ready.length > 0) flush();
  const sent = await Promise.allSettled(sends);
  const failure = [...puts, ...sent].find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
  return queued;
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
