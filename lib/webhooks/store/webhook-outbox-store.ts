import { DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { DispatchOutbox, QueuedDelivery } from '../domain/dispatch.ts';
import type { OutboxRun } from '../domain/due-sweep.ts';
import type { DeliveryTask } from '../domain/ports.ts';
import { DELIVERY_LOG_RETENTION_DAYS } from '../domain/endpoint.ts';
import { MESSAGE_LOST_AFTER_MS } from '../domain/sweep-at.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { batchGet, entityItem } from '../../platform/dynamo/entity.ts';
import { webhookAttemptEntity, webhookIndexKeys, webhookOutboxEntity, webhookTaskEntity } from './entities.ts';
import { taskAsRecorded } from '../domain/recorded-end.ts';
import { toAttempt } from './webhook-delivery-log.ts';
import { activeJobShardOf, padSequence } from '../../platform/dynamo/keys.ts';
import { BatchWritePuts } from '../../platform/dynamo/batch-write-puts.ts';
import { dueSortKey } from './webhook-task-index.ts';

/**
 * The dispatch outbox (docs/webhooks.md "The due-task sweep"): before the dispatcher queues a
 * stream batch's deliveries, it puts them here, one item per run of at most EVENTS_PER_ITEM of an
 * organization's events, filed in the due index under the time their messages count as lost. A
 * delivery is done with the outbox once its task has ended or scheduled a retry (which files the
 * task in the due index itself); the sweep reads the tasks, queues again what each delivery still
 * needs and deletes the item once none needs anything (lib/webhooks/domain/due-sweep.ts). A
 * retried stream batch puts the same items again (same keys), so nothing doubles. Its puts go
 * many to a request within the store's invocation only (it is built per invocation).
 */

type OutboxIdentity = { organizationId: string; firstSequence: number; lastSequence: number };

/** gsi1, the due index (lib/webhooks/store/webhook-task-index.ts): shards of their own, sorted by the time the item's messages count as lost. */
export function outboxDueKeys(outbox: OutboxIdentity, sweepAtMs: number): { gsi1pk: string; gsi1sk: string } {
  const identity = `${outbox.organizationId}#${padSequence(outbox.firstSequence)}#${padSequence(outbox.lastSequence)}`;
  return { gsi1pk: webhookIndexKeys.outboxDueShard(activeJobShardOf(identity)), gsi1sk: dueSortKey(sweepAtMs, identity) };
}

/** Events one item holds at most: with every endpoint of an organization on each, far under DynamoDB's 400 KB. */
const EVENTS_PER_ITEM = 250;

/** One event of an outbox item and the endpoints (by their place in `endpoints`) it was queued to. */
interface StoredOutboxEvent {
  sequence: number;
  eventId: string;
  type: string;
  committedAt: string;
  to: number[];
}

interface StoredOutbox {
  organizationId: string;
  firstSequence: number;
  lastSequence: number;
  endpoints: string[];
  events: StoredOutboxEvent[];
}

export class WebhookOutboxStore implements DispatchOutbox {
  constructor(
    private readonly tableName: string,
    private readonly puts: BatchWritePuts = new BatchWritePuts(),
    private readonly clock: () => number = Date.now,
  ) {}

  async record(organizationId: string, deliveries: readonly QueuedDelivery[]): Promise<void> {
    const sweepAt = this.clock() + MESSAGE_LOST_AFTER_MS;
    const ttl = Math.floor(this.clock() / 1000) + DELIVERY_LOG_RETENTION_DAYS * 86_400;
    await Promise.all(
      runsOf(organizationId, deliveries).map((run) =>
        this.puts.put(this.tableName, entityItem(webhookOutboxEntity, run, { outbox: run, ttl, ...outboxDueKeys(run, sweepAt) })),
      ),
    );
  }

  /** Each delivery of the run with its task, if its first claim created one. */
  async tasksOf(run: OutboxRun): Promise<Array<{ delivery: QueuedDelivery; task: DeliveryTask | undefined }>> {
    const keyOf = (delivery: QueuedDelivery) =>
      webhookTaskEntity.key({ organizationId: run.organizationId, endpointId: delivery.endpointId, sequence: delivery.event.sequence, origin: 'live' });
    const found = new Map(
      (await batchGet(this.tableName, run.deliveries.map(keyOf))).map((item) => [`${String(item.pk)}|${String(item.sk)}`, item.task as DeliveryTask]),
    );
    const tasks = run.deliveries.map((delivery) => {
      const { pk, sk } = keyOf(delivery);
      return { delivery, task: found.get(`${pk}|${String(sk)}`) };
    });
    // A task still holding its claim may have been ended by its attempt's log entry alone (lib/webhooks/domain/recorded-end.ts).
    const claimed = tasks.flatMap(({ task }) => (task?.status === 'pending' && task.inFlight ? [task] : []));
    if (claimed.length === 0) return tasks;
    const entryKey = (task: DeliveryTask) =>
      webhookAttemptEntity.key({ organizationId: task.organizationId, endpointId: task.endpointId, attemptId: task.inFlight?.attemptId ?? '' });
    const entries = new Map((await batchGet(this.tableName, claimed.map(entryKey))).map((item) => [`${String(item.pk)}|${String(item.sk)}`, toAttempt(item)]));
    return tasks.map(({ delivery, task }) => {
      if (!task?.inFlight) return { delivery, task };
      const { pk, sk } = entryKey(task);
      return { delivery, task: taskAsRecorded(task, entries.get(`${pk}|${String(sk)}`)) };
    });
  }

  /** Deletes the item if it is still filed under the sweep's lease until `leasedUntil` (nothing moved it meanwhile). */
  async close(run: OutboxRun, leasedUntil: Date): Promise<void> {
    try {
      await documentClient.send(
        new DeleteCommand({
          TableName: this.tableName,
          Key: webhookOutboxEntity.key(run),
          ConditionExpression: 'gsi1sk = :leased',
          ExpressionAttributeValues: { ':leased': outboxDueKeys(run, leasedUntil.getTime()).gsi1sk },
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
    }
  }
}

/** The stored item's deliveries, as the sweep reads them. */
export function outboxRunOf(stored: StoredOutbox): OutboxRun {
  const deliveries = stored.events.flatMap(({ to, ...event }) =>
    to.flatMap((place) => {
      const endpointId = stored.endpoints[place];
      return endpointId === undefined ? [] : [{ event: { organizationId: stored.organizationId, ...event }, endpointId }];
    }),
  );
  return { organizationId: stored.organizationId, firstSequence: stored.firstSequence, lastSequence: stored.lastSequence, deliveries };
}

/** The deliveries as items: events in sequence order, EVENTS_PER_ITEM to an item, each naming its endpoints by place. */
function runsOf(organizationId: string, deliveries: readonly QueuedDelivery[]): StoredOutbox[] {
  const byEvent = new Map<number, { event: QueuedDelivery['event']; endpointIds: string[] }>();
  for (const { event, endpointId } of deliveries) {
    const entry = byEvent.get(event.sequence);
    if (entry) entry.endpointIds.push(endpointId);
    else byEvent.set(event.sequence, { event, endpointIds: [endpointId] });
  }
  const events = [...byEvent.values()].sort((a, b) => a.event.sequence - b.event.sequence);
  const runs: StoredOutbox[] = [];
  for (let start = 0; start < events.length; start += EVENTS_PER_ITEM) {
    const slice = events.slice(start, start + EVENTS_PER_ITEM);
    const endpoints = [...new Set(slice.flatMap(({ endpointIds }) => endpointIds))];
    const place = new Map(endpoints.map((id, index) => [id, index]));
    runs.push({
      organizationId,
      firstSequence: slice[0]?.event.sequence ?? 0,
      lastSequence: slice.at(-1)?.event.sequence ?? 0,
      endpoints,
      events: slice.map(({ event, endpointIds }) => ({
        sequence: event.sequence,
        eventId: event.eventId,
        type: event.type,
        committedAt: event.committedAt,
        to: endpointIds.map((id) => place.get(id) ?? 0),
      })),
    });
  }
  return runs;
}

export type { StoredOutbox };
