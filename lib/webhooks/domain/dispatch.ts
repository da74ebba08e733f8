import { subscribes, type StoredEndpoint } from './endpoint.ts';
import type { DeliveryMessage, DeliveryQueue, DeliveryStorage, DeliveryTask, EndpointStorage } from './ports.ts';

/**
 * From committed events to queued deliveries (docs/webhooks.md "Delivery"). Live: per event, the
 * tenant's enabled endpoints that subscribe to its type and were created before it get one
 * message each, sent while the stream batch's deliveries are put in the dispatch outbox; the first
 * attempt's claim creates the task, so a retried batch (or a duplicate message) never doubles a
 * delivery, and the due-task sweep queues again, from the outbox, any delivery whose message was
 * lost before its claim. Replays create their tasks first (a conditional put each, which the
 * replay cap counts), then queue those not attempted yet.
 */

export interface CommittedEvent {
  organizationId: string;
  sequence: number;
  eventId: string;
  type: string;
  committedAt: string;
  /** The stored envelope, where the event comes from the stream: a small one rides in its first attempt's messages. */
  envelopeJson?: string;
}

/** One delivery the dispatcher queues: an event to one endpoint. */
export interface QueuedDelivery {
  event: CommittedEvent;
  endpointId: string;
}

/**
 * The live deliveries the dispatcher queued, kept until each has its task (its first claim
 * creates it): what the due-task sweep queues again when a message was lost before its claim.
 */
export interface DispatchOutbox {
  record(organizationId: string, deliveries: readonly QueuedDelivery[]): Promise<void>;
}

export interface LiveDispatcher {
  endpoints: Pick<EndpointStorage, 'all'>;
  outbox: DispatchOutbox;
  queue: DeliveryQueue;
}

/** What a replay page needs: its tasks are created before they are queued (the replay cap counts them). */
export interface TaskPlanner {
  deliveries: Pick<DeliveryStorage, 'createTask'>;
  queue: DeliveryQueue;
}

const SQS_BATCH = 10;
/**
 * The largest envelope a first attempt's message carries: the message stays within one 64 KB unit
 * of SQS billing, and the attempt reads no event (docs/webhooks.md "Delivery"). Larger ones are read.
 */
export const CARRIED_ENVELOPE_MAX_BYTES = 48 * 1024;
/** SendMessageBatch requests one dispatch has in flight at most. */
const CONCURRENT_SENDS = 16;

/**
 * The event as its messages may carry it: its envelope kept only if small enough and made of
 * characters SQS accepts in a body (JSON escapes every other one but U+FFFE and U+FFFF, which item
 * names may hold). Decided once an event, however many endpoints it goes to.
 */
function withCarriableEnvelope(event: CommittedEvent): CommittedEvent {
  const { envelopeJson, ...named } = event;
  if (envelopeJson === undefined) return event;
  return Buffer.byteLength(envelopeJson) <= CARRIED_ENVELOPE_MAX_BYTES && !/[\uFFFE\uFFFF]/u.test(envelopeJson) ? event : named;
}

/** A first attempt's message: it names its event (with its envelope, if the event has one), so the claim can create the task. */
export function firstAttemptMessage(delivery: QueuedDelivery, origin: string, dueAt: number): Extract<DeliveryMessage, { kind: 'attempt' }> {
  const { event, endpointId } = delivery;
  return {
    kind: 'attempt',
    organizationId: event.organizationId,
    endpointId,
    sequence: event.sequence,
    origin,
    attempt: 1,
    dueAt,
    event: {
      eventId: event.eventId,
      type: event.type,
      committedAt: event.committedAt,
      ...(event.envelopeJson === undefined ? {} : { envelopeJson: event.envelopeJson }),
    },
  };
}

/** Sends the messages ten to a request, a bounded number at a time; every send is awaited before the first failure is thrown. */
export async function sendAll(queue: DeliveryQueue, messages: readonly DeliveryMessage[]): Promise<void> {
  let next = 0;
  const sendNext = async (): Promise<void> => {
    while (next < messages.length) {
      const batch = messages.slice(next, next + SQS_BATCH);
      next += SQS_BATCH;
      await queue.send(batch.map((message) => ({ message, delaySeconds: 0 })));
    }
  };
  const sent = await Promise.allSettled(Array.from({ length: Math.min(CONCURRENT_SENDS, Math.ceil(messages.length / SQS_BATCH)) }, sendNext));
  const failure = sent.find((outcome) => outcome.status === 'rejected');
  if (failure) throw failure.reason;
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
 * Creates (once) the task of each (endpoint, event) of a replay page and queues what was not
 * attempted yet. The puts go a bounded number at a time; each task's message is sent as soon as
 * ten are ready (one SendMessageBatch), while the next puts run.
 */
export async function createTasks(
  planner: TaskPlanner,
  pairs: readonly { event: CommittedEvent; endpointId: string; origin: string }[],
  now: () => number = Date.now,
): Promise<number> {
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
        ready.push(firstAttemptMessage(pair, pair.origin, now()));
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
  return endpoints.filter(
    ({ endpoint, createdAfterSequence }) => endpoint.status === 'enabled' && createdAfterSequence < event.sequence && subscribes(endpoint, event.type),
  );
}

/**
 * The dispatcher's work for one stream batch: events grouped by tenant, each tenant's endpoints
 * read once; its deliveries go to the outbox, then to the queue.
 */
export async function dispatchEvents(dispatcher: LiveDispatcher, events: readonly CommittedEvent[], now: () => number = Date.now): Promise<number> {
  const byTenant = new Map<string, CommittedEvent[]>();
  for (const event of events) {
    const ofTenant = byTenant.get(event.organizationId);
    if (ofTenant) ofTenant.push(event);
    else byTenant.set(event.organizationId, [event]);
  }
  let queued = 0;
  await Promise.all(
    [...byTenant].map(async ([organizationId, tenantEvents]) => {
      const endpoints = await dispatcher.endpoints.all(organizationId);
      if (endpoints.length === 0) return;
      const deliveries = tenantEvents.flatMap((event) => {
        const recipients = liveRecipients(endpoints, event);
        const carried = recipients.length === 0 ? event : withCarriableEnvelope(event);
        return recipients.map(({ endpoint }) => ({ event: carried, endpointId: endpoint.id }));
      });
      if (deliveries.length === 0) return;
      // The outbox put and the sends go at once: the batch succeeds only once both have, so a
      // message lost afterwards is queued again from the outbox, and a batch that failed either
      // is retried whole (the claim drops the copies).
      const dueAt = now();
      const [recorded, sent] = await Promise.allSettled([
        dispatcher.outbox.record(organizationId, deliveries),
        sendAll(
          dispatcher.queue,
          deliveries.map((delivery) => firstAttemptMessage(delivery, 'live', dueAt)),
        ),
      ]);
      if (recorded.status === 'rejected') throw recorded.reason;
      if (sent.status === 'rejected') throw sent.reason;
      queued += deliveries.length;
    }),
  );
  return queued;
}
