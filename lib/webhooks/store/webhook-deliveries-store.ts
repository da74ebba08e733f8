import { GetCommand, PutCommand, UpdateCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import { randomUUID } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import type { PageOf } from '../../platform/pagination/page.ts';
import { DELIVERY_LOG_RETENTION_DAYS } from '../domain/endpoint.ts';
import type { AttemptOutcome, AttemptUnderWay, DeliveryAttempt, DeliveryStorage, DeliveryTask, Settler, TaskIdentity, TaskNext } from '../domain/ports.ts';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem } from '../../platform/dynamo/entity.ts';
import { toAttempt, WebhookDeliveryLog } from './webhook-delivery-log.ts';
import { webhookAttemptEntity, webhookTaskEntity } from './entities.ts';
import { taskSweepAt } from '../domain/sweep-at.ts';
import { endsWithLogEntry, taskAsRecorded } from '../domain/recorded-end.ts';
import { FINISHED_TASK_ATTRIBUTES, replayTaskKeys, taskDueKeys } from './webhook-task-index.ts';
import { insertStatement, BatchStatements, updateStatement } from '../../platform/dynamo/batch-statements.ts';
import { BatchWritePuts } from '../../platform/dynamo/batch-write-puts.ts';

/**
 * Delivery tasks and the delivery log in the inventory table (docs/webhooks.md "Delivery"). One
 * task per (endpoint, event, origin): a live delivery's first claim creates it, a replay page
 * inserts its own (refused where one exists). An attempt is claimed by one conditional update of
 * the task (its attempt count), so two workers holding the same message never both send; a slow
 * attempt's `pending` log entry follows. It is settled by its log entry (the claimant's put with no
 * condition, a successor's only over `pending` or none), then the task: a live first attempt's
 * final entry is its task's end by itself (lib/webhooks/domain/recorded-end.ts), any other end of
 * the claimant's is a put with no condition, and a next attempt is scheduled only while that
 * attempt is in flight.
 * Each is one single-item write, not a transaction (a transactional write bills twice on AWS,
 * docs/performance.md "Webhooks"), and all but the claim go many to a request; a
 * worker that dies between the two leaves a task in flight whose log entry holds the outcome,
 * which the interrupted settle applies (lib/webhooks/domain/deliver.ts). A replay task's
 * creation and every settle that schedules a retry file the task in the due index under the time
 * its next message counts as lost; an end takes it out (lib/webhooks/store/webhook-task-index.ts); the
 * claim leaves it.
 *
 * A store's batchers are its own: build one per invocation (functions/workers/deliver-webhooks.ts),
 * so writes go many to a request only within an invocation, as they can on Lambda.
 */

const ttlFrom = (iso: string) => Math.floor(Date.parse(iso) / 1000) + DELIVERY_LOG_RETENTION_DAYS * 86_400;

export class WebhookDeliveriesStore implements DeliveryStorage {
  constructor(
    private readonly tableName: string,
    private readonly batches: BatchStatements = new BatchStatements(),
    private readonly puts: BatchWritePuts = new BatchWritePuts(),
  ) {
    this.log = new WebhookDeliveryLog(tableName);
  }

  private readonly log: WebhookDeliveryLog;

  async createTask(task: DeliveryTask): Promise<{ created: true } | { created: false; existing: DeliveryTask }> {
    const outcome = await this.batches.write(insertStatement(this.tableName, this.taskItem(task)));
    if (outcome.written) return { created: true };
    const existing = await this.getTask(task);
    if (!existing) throw new Error(`Delivery task of ${task.eventId} vanished right after its insert was refused`);
    return { created: false, existing };
  }

  /** The task as it stands, its attempt under way's final log entry taken for its end (lib/webhooks/domain/recorded-end.ts). */
  async getTask(identity: TaskIdentity): Promise<DeliveryTask | undefined> {
    const { Item } = await documentClient.send(new GetCommand({ TableName: this.tableName, Key: webhookTaskEntity.key(identity), ConsistentRead: true }));
    const task = Item?.task as DeliveryTask | undefined;
    if (!task?.inFlight) return task;
    return taskAsRecorded(task, await this.attemptOf(task, task.inFlight.attemptId));
  }

  async claimAttempt(
    identity: TaskIdentity,
    attempt: AttemptUnderWay,
    created?: DeliveryTask,
  ): Promise<{ claimed: true; task: DeliveryTask } | { claimed: false; task: DeliveryTask | undefined }> {
    const names = { '#task': 'task', '#attempts': 'attempts', '#inFlight': 'inFlight', '#status': 'status' };
    const values = { ':previous': attempt.number - 1, ':pending': 'pending', ':none': null };
    const unclaimed = '#task.#attempts = :previous AND #task.#status = :pending AND #task.#inFlight = :none';
    if (attempt.number === 1 && created) {
      // The whole task, where none is stored (a live delivery) or over one never attempted (a
      // replay's): one write creates and claims it. Its index keys are left as they are: a live
      // task enters the due index only when an attempt schedules a retry (until then the
      // dispatcher's outbox item stands for it), and a replay's keeps its own.
      const task = { ...created, attempts: 1, inFlight: attempt };
      const { pk: _pk, sk: _sk, ...attributes } = entityItem(webhookTaskEntity, task, { task, ttl: ttlFrom(task.committedAt) });
      const assignments = Object.entries(attributes).map(([name, value], index) => ({ name, value, placeholder: `a${index}` }));
      return this.claim(
        {
          UpdateExpression: `SET ${assignments.map(({ placeholder }) => `#${placeholder} = :${placeholder}`).join(', ')}`,
          ConditionExpression: `attribute_not_exists(pk) OR (${unclaimed})`,
          ExpressionAttributeNames: { ...names, ...Object.fromEntries(assignments.map(({ name, placeholder }) => [`#${placeholder}`, name])) },
          ExpressionAttributeValues: { ...values, ...Object.fromEntries(assignments.map(({ value, placeholder }) => [`:${placeholder}`, value])) },
        },
        identity,
        attempt,
      );
    }
    return this.claim(
      {
        // The due index is left as it is: a sweep that finds the task while its attempt is under way sends a message the claim refuses (lib/webhooks/domain/sweep-at.ts).
        UpdateExpression: 'SET #task.#attempts = :number, #task.#inFlight = :inFlight',
        ConditionExpression: unclaimed,
        ExpressionAttributeNames: names,
        ExpressionAttributeValues: { ...values, ':number': attempt.number, ':inFlight': attempt },
      },
      identity,
      attempt,
    );
  }

  private async claim(
    update: Required<Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>>,
    identity: TaskIdentity,
    attempt: AttemptUnderWay,
  ): Promise<{ claimed: true; task: DeliveryTask } | { claimed: false; task: DeliveryTask | undefined }> {
    try {
      const { Attributes } = await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: webhookTaskEntity.key(identity),
          ...update,
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
    const entry: DeliveryAttempt = {
      id: attempt.attemptId,
      eventId: task.eventId,
      eventType: task.eventType,
      attempt: attempt.number,
      status: 'pending',
      responseStatus: null,
      durationMs: null,
      error: null,
      attemptedAt: attempt.startedAt,
      nextAttemptAt: null,
    };
    // With no condition: the claimant writes it before its outcome (it waits for this put), and a
    // successor settles the attempt only once it must have ended (STALE_ATTEMPT_MS after the claim).
    await this.puts.put(this.tableName, this.attemptItem(task, entry));
  }

  async settleAttempt(task: DeliveryTask, attempt: AttemptUnderWay, outcome: AttemptOutcome, next: TaskNext, settler: Settler = 'successor'): Promise<boolean> {
    const entry: DeliveryAttempt = {
      id: attempt.attemptId,
      eventId: task.eventId,
      eventType: task.eventType,
      attempt: attempt.number,
      attemptedAt: attempt.startedAt,
      ...outcome,
    };
    if (settler === 'claimant') {
      // What the claimant sent is the truth of the attempt: its entry is put with no condition (a
      // successor that took the attempt for interrupted meanwhile is overwritten by what happened,
      // and moved the task on itself, so the task write below is refused and its retry stands).
      await this.puts.put(this.tableName, this.attemptItem(task, entry));
      if (next.status === 'pending') return this.finishTask(task, attempt.attemptId, next);
      if (!endsWithLogEntry(task, attempt, Date.now())) await this.endTask(task, attempt, next.status);
      return true;
    }
    // Names this settle, so the SDK's retry of a write that landed (its answer lost) knows it for its own.
    const settleId = randomUUID();
    // A successor's outcome only over a `pending` entry (or none, when the claim's worker died before writing it):
    // never over one the claimant settled.
    const key = webhookAttemptEntity.key({ organizationId: task.organizationId, endpointId: task.endpointId, attemptId: entry.id });
    const { status, responseStatus, durationMs, error, nextAttemptAt } = entry;
    const written = await this.batches.write(
      updateStatement(this.tableName, key, {
        set: { status, responseStatus, durationMs, error, nextAttemptAt, settleId },
        conditions: { status: 'pending' },
        returnOldItem: true,
      }),
    );
    if (!written.written) {
      if (written.item) {
        if (written.item.settleId !== settleId) return false;
      } else if (!(await this.putOutcomeOverNone(task, entry, settleId))) return false;
    }
    return this.finishTask(task, attempt.attemptId, next);
  }

  /** The outcome where the `pending` entry was never written (or an SDK retry of this very put finds it written). */
  private async putOutcomeOverNone(task: DeliveryTask, entry: DeliveryAttempt, settleId: string): Promise<boolean> {
    try {
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
      return true;
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      return error.Item?.settleId?.S === settleId;
    }
  }

  async attemptOf(task: Pick<DeliveryTask, 'organizationId' | 'endpointId'>, attemptId: string): Promise<DeliveryAttempt | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({
        TableName: this.tableName,
        Key: webhookAttemptEntity.key({ organizationId: task.organizationId, endpointId: task.endpointId, attemptId }),
        ConsistentRead: true,
      }),
    );
    return Item ? toAttempt(Item) : undefined;
  }

  async finishTask(task: DeliveryTask, attemptId: string, next: TaskNext): Promise<boolean> {
    const sweepAt = taskSweepAt(next, Date.now());
    // Names this write, so the SDK's retry of an update that landed (its answer lost) knows it for its own.
    const finishId = randomUUID();
    const index = sweepAt === null ? { remove: FINISHED_TASK_ATTRIBUTES } : { set: taskDueKeys(task, sweepAt) };
    const outcome = await this.batches.write(
      updateStatement(this.tableName, webhookTaskEntity.key(task), {
        set: { 'task.status': next.status, 'task.nextAttemptAt': next.nextAttemptAt, 'task.inFlight': null, finishId, ...('set' in index ? index.set : {}) },
        ...('remove' in index ? { remove: index.remove } : {}),
        conditions: { 'task.inFlight.attemptId': attemptId },
        returnOldItem: true,
      }),
    );
    // Refused because this very write landed before (the SDK's retry): it is this worker's.
    return outcome.written || outcome.item?.finishId === finishId;
  }

  /**
   * The claimant's end of the task (no attempt follows), after its log entry, where the entry alone
   * does not end it (a retry's or a replay's task, or a claimant slower than a successor's
   * patience): the truth of the attempt too, so it is put with no condition, many to a request.
   * Who queues a next attempt is decided by `finishTask`'s conditional write instead.
   */
  protected async endTask(task: DeliveryTask, attempt: AttemptUnderWay, status: Exclude<TaskNext['status'], 'pending'>): Promise<void> {
    await this.puts.put(this.tableName, this.taskItem({ ...task, attempts: attempt.number, status, nextAttemptAt: null, inFlight: null }));
  }

  attemptsPage(
    organizationId: string,
    endpointId: string,
    filter: { eventId?: string; status?: string },
    after: string | undefined,
    limit: number,
  ): Promise<PageOf<DeliveryAttempt>> {
    return this.log.attemptsPage(organizationId, endpointId, filter, after, limit);
  }

  private taskItem(task: DeliveryTask): Record<string, unknown> {
    const sweepAt = taskSweepAt(task, Date.now());
    const pending = task.status === 'pending';
    return entityItem(webhookTaskEntity, task, {
      task,
      ttl: ttlFrom(task.committedAt),
      ...(sweepAt === null ? {} : taskDueKeys(task, sweepAt)),
      ...(pending ? replayTaskKeys(task) : {}),
    });
  }

  private attemptItem(task: DeliveryTask, entry: DeliveryAttempt): Record<string, unknown> {
    return entityItem(
      webhookAttemptEntity,
      { organizationId: task.organizationId, endpointId: task.endpointId, attemptId: entry.id },
      { ...entry, ttl: ttlFrom(entry.attemptedAt) },
    );
  }
}
