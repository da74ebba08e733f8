import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { DueSweepPorts, OutboxRun, SweptEntry } from '../domain/due-sweep.ts';
import type { DeliveryTask, Replay } from '../domain/ports.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { webhookIndexKeys, webhookOutboxEntity, webhookReplayEntity, webhookTaskEntity } from './entities.ts';
import { DUE_INDEX, DUE_SHARDS, replayDueKeys, taskDueKeys } from './webhook-task-index.ts';
import { outboxDueKeys, outboxRunOf, WebhookOutboxStore, type StoredOutbox } from './webhook-outbox-store.ts';

/**
 * The due-task sweep's reads and leases (docs/webhooks.md "The due-task sweep"): one Query per
 * shard of the due index, `gsi1sk < now`, one page of a bounded size each (never a Scan); a lease
 * moves an entry's sweep-at on, conditioned on the one read, so of two sweeps, or of a sweep and a
 * worker that moved the task meanwhile, only one goes on to send.
 */

type Item = Record<string, unknown>;

export class WebhookDueSweepStore implements Pick<DueSweepPorts, 'dueTasks' | 'leaseTask' | 'stalledReplays' | 'leaseReplay' | 'dueOutbox' | 'leaseOutbox'> {
  constructor(private readonly tableName: string) {}

  async dueTasks(now: Date, limit: number): Promise<SweptEntry<DeliveryTask>[]> {
    const items = await this.dueEntries(webhookIndexKeys.dueTasksShard, now, limit);
    return items.filter((item) => item.task !== undefined).map((item) => ({ item: item.task as DeliveryTask, sweepKey: item.gsi1sk as string }));
  }

  async stalledReplays(now: Date, limit: number): Promise<SweptEntry<Replay>[]> {
    const items = await this.dueEntries(webhookIndexKeys.runningReplaysShard, now, limit);
    return items.filter((item) => item.replay !== undefined).map((item) => ({ item: item.replay as Replay, sweepKey: item.gsi1sk as string }));
  }

  async dueOutbox(now: Date, limit: number): Promise<SweptEntry<OutboxRun>[]> {
    const items = await this.dueEntries(webhookIndexKeys.outboxDueShard, now, limit);
    return items
      .filter((item) => item.outbox !== undefined)
      .map((item) => ({ item: outboxRunOf(item.outbox as StoredOutbox), sweepKey: item.gsi1sk as string }));
  }

  leaseOutbox(entry: SweptEntry<OutboxRun>, nextSweepAt: Date): Promise<boolean> {
    return this.lease(webhookOutboxEntity.key(entry.item), entry.sweepKey, outboxDueKeys(entry.item, nextSweepAt.getTime()).gsi1sk);
  }

  leaseTask(entry: SweptEntry<DeliveryTask>, nextSweepAt: Date): Promise<boolean> {
    const task = entry.item;
    return this.lease(webhookTaskEntity.key(task), entry.sweepKey, taskDueKeys(task, nextSweepAt.getTime()).gsi1sk, { attribute: 'task', status: 'pending' });
  }

  leaseReplay(entry: SweptEntry<Replay>, nextSweepAt: Date): Promise<boolean> {
    const replay = entry.item;
    return this.lease(
      webhookReplayEntity.key({ organizationId: replay.organizationId, replayId: replay.id }),
      entry.sweepKey,
      replayDueKeys(replay, nextSweepAt.getTime()).gsi1sk,
      { attribute: 'replay', status: 'running' },
    );
  }

  /** A bounded page of every shard: at most `limit` entries in all, the earliest of each shard. */
  private async dueEntries(shardKey: (shard: number) => string, now: Date, limit: number): Promise<Item[]> {
    const perShard = Math.max(1, Math.ceil(limit / DUE_SHARDS));
    const pages = await Promise.all(
      Array.from({ length: DUE_SHARDS }, (_, shard) =>
        documentClient.send(
          new QueryCommand({
            TableName: this.tableName,
            IndexName: DUE_INDEX,
            KeyConditionExpression: 'gsi1pk = :shard AND gsi1sk < :now',
            ExpressionAttributeValues: { ':shard': shardKey(shard), ':now': now.toISOString() },
            Limit: perShard,
          }),
        ),
      ),
    );
    return pages.flatMap((page) => page.Items ?? []).slice(0, limit);
  }

  /** `state`: the status the item must still have (an outbox item has none: it is deleted once done). */
  private async lease(key: Record<string, string>, read: string, next: string, state?: { attribute: string; status: string }): Promise<boolean> {
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: key,
          UpdateExpression: 'SET gsi1sk = :next',
          ...(state
            ? {
                ConditionExpression: 'gsi1sk = :read AND #state.#status = :status',
                ExpressionAttributeNames: { '#state': state.attribute, '#status': 'status' },
                ExpressionAttributeValues: { ':next': next, ':read': read, ':status': state.status },
              }
            : { ConditionExpression: 'gsi1sk = :read', ExpressionAttributeValues: { ':next': next, ':read': read } }),
        }),
      );
      return true;
    } catch (error) {
      if (error instanceof ConditionalCheckFailedException) return false;
      throw error;
    }
  }
}

/** The sweep's ports on the inventory table and the delivery queue, as the scheduled function runs it. */
export function dueSweepPortsOf(tableName: string, queue: DueSweepPorts['queue'], onError?: DueSweepPorts['onError']): DueSweepPorts {
  const store = new WebhookDueSweepStore(tableName);
  const outbox = new WebhookOutboxStore(tableName);
  return {
    dueTasks: (now, limit) => store.dueTasks(now, limit),
    leaseTask: (entry, next) => store.leaseTask(entry, next),
    stalledReplays: (now, limit) => store.stalledReplays(now, limit),
    leaseReplay: (entry, next) => store.leaseReplay(entry, next),
    dueOutbox: (now, limit) => store.dueOutbox(now, limit),
    leaseOutbox: (entry, next) => store.leaseOutbox(entry, next),
    tasksOf: (run) => outbox.tasksOf(run),
    closeOutbox: (run, leasedUntil) => outbox.close(run, leasedUntil),
    queue,
    ...(onError ? { onError } : {}),
  };
}
