import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { PageOf } from '../domain/pagination/page.ts';
import { DELIVERY_LOG_RETENTION_DAYS } from '../domain/webhooks/endpoint.ts';
import type { AttemptOutcome, AttemptUnderWay, DeliveryAttempt, DeliveryStorage, DeliveryTask, TaskIdentity, TaskNext } from '../domain/webhooks/ports.ts';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from './dynamodb-client.ts';
import { entityItem, readPageInOneQuery, sortKeyRange, type ItemFilter } from './entity.ts';
import { WEBHOOK_ATTEMPT_PREFIX, webhookAttemptEntity, webhookTaskEntity } from './entities.ts';
import { keys } from './keys.ts';
import { taskSweepAt } from '../domain/webhooks/sweep-at.ts';
import { FINISHED_TASK_REMOVALS, replayTaskKeys, taskDueKeys } from './webhook-task-index.ts';

/**
 * Delivery tasks and the delivery log in the inventory table (docs/webhooks.md "Delivery"). A
 * task is put once per (endpoint, event, origin) with `attribute_not_exists`. An attempt is
 * claimed by one conditional update of the task (its attempt count), so two workers holding the
 * same message never both send; its `pending` log entry follows. It is settled by its log entry
 * (written only over `pending`), then the task (only while that attempt is in flight). Each is
 * one single-item write, not a transaction (a transaction costs DynamoDB Local about four single
 * writes, docs/performance.md "Webhooks"); a worker that dies between the two leaves a task in
 * flight whose log entry holds the outcome, which the interrupted settle applies (lib/domain/
 * webhooks/deliver.ts). Each task write
 * also files the task in the due index under the time its next message counts as lost, or takes
 * it out once it ends (lib/store/webhook-task-index.ts), for the due-task sweep.
 */

/** A filtered page of the delivery log examines at most this many entries. */
export const DELIVERY_LOG_PAGE_BUDGET = 1000;

const ttlFrom = (iso: string) => Math.floor(Date.parse(iso) / 1000) + DELIVERY_LOG_RETENTION_DAYS * 86_400;

export class WebhookDeliveriesStore implements DeliveryStorage {
  constructor(private readonly tableName: string) {}

  async createTask(task: DeliveryTask): Promise<{ created: true } | { created: false; existing: DeliveryTask }> {
    try {
      await documentClient.send(new PutCommand({ TableName: this.tableName, Item: this.taskItem(task), ConditionExpression: 'attribute_not_exists(pk)' }));
      return { created: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const existing = await this.getTask(task);
      if (!existing) throw new Error(`Delivery task of ${task.eventId} vanished right after its put failed`, { cause: error });
      return { created: false, existing };
    }
  }

  async getTask(identity: TaskIdentity): Promise<DeliveryTask | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: webhookTaskEntity.key(identity), ConsistentRead: true }));
    return Item?.task as DeliveryTask | undefined;
  }

  async claimAttempt(identity: TaskIdentity, attempt: AttemptUnderWay): Promise<{ claimed: true; task: DeliveryTask } | { claimed: false; task: DeliveryTask | undefined }> {
    try {
      const { Attributes } = await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookTaskEntity.key(identity),
          UpdateExpression: 'SET #task.#attempts = :number, #task.#inFlight = :inFlight, gsi1pk = :duePartition, gsi1sk = :dueSortKey',
          ConditionExpression: '#task.#attempts = :previous AND #task.#status = :pending AND #task.#inFlight = :none',
          ExpressionAttributeNames: { '#task': 'task', '#attempts': 'attempts', '#inFlight': 'inFlight', '#status': 'status' },
          ExpressionAttributeValues: { ':number': attempt.number, ':previous': attempt.number - 1, ':inFlight': attempt, ':pending': 'pending', ':none': null, ...dueValues(identity, taskSweepAt({ status: 'pending', inFlight: attempt, nextAttemptAt: null }, Date.now())) },
          ReturnValues: 'ALL_NEW',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return { claimed: true, task: Attributes?.task as DeliveryTask };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // The item comes back marshalled with a refused update.
      const current = error.Item ? (unmarshall(error.Item).task as DeliveryTask) : undefined;
      // The SDK's retry of a claim that landed (its answer was lost) finds the claim its own.
      if (current?.inFlight?.attemptId === attempt.attemptId) return { claimed: true, task: current };
      return { claimed: false, task: current };
    }
  }

  async recordPending(task: DeliveryTask, attempt: AttemptUnderWay): Promise<void> {
    const entry: DeliveryAttempt = { id: attempt.attemptId, eventId: task.eventId, eventType: task.eventType, attempt: attempt.number, status: 'pending', responseStatus: null, durationMs: null, error: null, attemptedAt: attempt.startedAt, nextAttemptAt: null };
    // Only where absent: an entry already settled (by an interrupted settle elsewhere) is never undone.
    await documentClient.send(new PutCommand({ TableName: this.tableName, Item: this.attemptItem(task, entry), ConditionExpression: 'attribute_not_exists(pk)' })).catch(ignoreConditionFailed);
  }

  async settleAttempt(task: DeliveryTask, attempt: AttemptUnderWay, outcome: AttemptOutcome, next: TaskNext): Promise<boolean> {
    const entry: DeliveryAttempt = { id: attempt.attemptId, eventId: task.eventId, eventType: task.eventType, attempt: attempt.number, attemptedAt: attempt.startedAt, ...outcome };
    // Names this settle, so the SDK's retry of a write that landed (its answer lost) knows it for its own.
    const settleId = randomUUID();
    try {
      // The outcome first, only over a `pending` entry (or none, when the claim's worker died before writing it): of two
      // settles of one attempt (its worker's, and the interrupted settle of a worker that found it stale) one wins.
      await documentClient.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...this.attemptItem(task, entry), settleId },
          ConditionExpression: 'attribute_not_exists(pk) OR #status = :pending',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':pending': 'pending' },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      if (error.Item?.settleId?.S !== settleId) return false;
    }
    return this.finishTask(task, attempt.attemptId, next);
  }

  async attemptOf(task: Pick<DeliveryTask, 'organizationId' | 'endpointId'>, attemptId: string): Promise<DeliveryAttempt | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: webhookAttemptEntity.key({ organizationId: task.organizationId, endpointId: task.endpointId, attemptId }), ConsistentRead: true }));
    return Item ? toAttempt(Item) : undefined;
  }

  async finishTask(task: DeliveryTask, attemptId: string, next: TaskNext): Promise<boolean> {
    const sweepAt = taskSweepAt({ status: next.status, inFlight: null, nextAttemptAt: next.nextAttemptAt }, Date.now());
    // Names this write, so the SDK's retry of an update that landed (its answer lost) knows it for its own.
    const finishId = randomUUID();
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookTaskEntity.key(task),
          UpdateExpression: `SET #task.#status = :status, #task.#nextAttemptAt = :nextAttemptAt, #task.#inFlight = :none, finishId = :finishId${sweepAt === null ? ` REMOVE ${FINISHED_TASK_REMOVALS}` : ', gsi1pk = :duePartition, gsi1sk = :dueSortKey'}`,
          ConditionExpression: '#task.#inFlight.#attemptId = :attemptId',
          ExpressionAttributeNames: { '#task': 'task', '#status': 'status', '#nextAttemptAt': 'nextAttemptAt', '#inFlight': 'inFlight', '#attemptId': 'attemptId' },
          ExpressionAttributeValues: { ':status': next.status, ':nextAttemptAt': next.nextAttemptAt, ':none': null, ':attemptId': attemptId, ':finishId': finishId, ...(sweepAt === null ? {} : dueValues(task, sweepAt)) },
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      );
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      // Refused because this very write landed before (the SDK's retry): it is this worker's.
      return error.Item?.finishId?.S === finishId;
    }
  }

  async attemptsPage(organizationId: string, endpointId: string, filter: { eventId?: string; status?: string }, after: string | undefined, limit: number): Promise<PageOf<DeliveryAttempt>> {
    const conditions: string[] = [];
    const itemFilter: ItemFilter = { expression: '', names: {}, values: {} };
    if (filter.eventId !== undefined) {
      conditions.push('#eventId = :eventId');
      itemFilter.names['#eventId'] = 'eventId';
      itemFilter.values[':eventId'] = filter.eventId;
    }
    if (filter.status !== undefined) {
      conditions.push('#status = :status');
      itemFilter.names['#status'] = 'status';
      itemFilter.values[':status'] = filter.status;
    }
    itemFilter.expression = conditions.join(' AND ');
    const page = await readPageInOneQuery({
      tableName: this.tableName,
      partition: { name: 'pk', value: keys.webhookAttemptsOf(organizationId, endpointId) },
      sortKey: { name: 'sk', ...sortKeyRange(WEBHOOK_ATTEMPT_PREFIX) },
      after,
      limit,
      newestFirst: true,
      ...(conditions.length > 0 ? { filter: itemFilter, budget: DELIVERY_LOG_PAGE_BUDGET } : { budget: limit + 1 }),
    });
    return { items: page.items.map(toAttempt), last: page.last, more: page.more };
  }

  private taskItem(task: DeliveryTask): Record<string, unknown> {
    const sweepAt = taskSweepAt(task, Date.now());
    return entityItem(webhookTaskEntity, task, { task, ttl: ttlFrom(task.committedAt), ...(sweepAt === null ? {} : taskDueKeys(task, sweepAt)), ...replayTaskKeys(task) });
  }

  private attemptItem(task: DeliveryTask, entry: DeliveryAttempt): Record<string, unknown> {
    return entityItem(webhookAttemptEntity, { organizationId: task.organizationId, endpointId: task.endpointId, attemptId: entry.id }, { ...entry, ttl: ttlFrom(entry.attemptedAt) });
  }
}

function ignoreConditionFailed(error: unknown): void {
  if (!(error instanceof ConditionalCheckFailedException)) throw error;
}

/** The due index's keys as update values (`:duePartition`, `:dueSortKey`). */
function dueValues(task: TaskIdentity, sweepAt: number | null): Record<string, string> {
  if (sweepAt === null) return {};
  const { gsi1pk, gsi1sk } = taskDueKeys(task, sweepAt);
  return { ':duePartition': gsi1pk, ':dueSortKey': gsi1sk };
}

function toAttempt(item: Record<string, unknown>): DeliveryAttempt {
  return {
    id: item.id as string,
    eventId: item.eventId as string,
    eventType: item.eventType as string,
    attempt: item.attempt as number,
    status: item.status as DeliveryAttempt['status'],
    responseStatus: (item.responseStatus as number | null) ?? null,
    durationMs: (item.durationMs as number | null) ?? null,
    error: (item.error as string | null) ?? null,
    attemptedAt: item.attemptedAt as string,
    nextAttemptAt: (item.nextAttemptAt as string | null) ?? null,
  };
}
