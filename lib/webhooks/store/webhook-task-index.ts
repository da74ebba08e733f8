import type { DeliveryTask, Replay } from '../domain/ports.ts';
import { ACTIVE_JOB_SHARDS, activeJobShardOf, padSequence } from '../../platform/dynamo/keys.ts';
import { webhookIndexKeys } from './entities.ts';

/**
 * Where delivery tasks and replays sit in the inventory table's indexes (docs/webhooks.md "The
 * due-task sweep" and "Replaying"):
 * - gsi1, the due index: a pending task, a running replay and an outbox item of the dispatcher,
 *   each kind under shards of its own, sorted by the time its message counts as lost, so the
 *   sweep's read is a bounded Query per shard (`gsi1sk < now`), never a Scan; a finished one
 *   leaves it (REMOVE of both keys, or the outbox item's delete);
 * - gsi2, a replay task not finished yet under its organization's partition: what the replay cap
 *   counts.
 */

export const DUE_SHARDS = ACTIVE_JOB_SHARDS;
export const DUE_INDEX = 'gsi1';
export const REPLAY_TASKS_INDEX = 'gsi2';

/** `<sweep-at ISO>#<identity>`: sorts by time, and the identity keeps every entry apart. */
export function dueSortKey(sweepAtMs: number, identity: string): string {
  return `${new Date(sweepAtMs).toISOString()}#${identity}`;
}

const taskIdentity = (task: Pick<DeliveryTask, 'organizationId' | 'endpointId' | 'sequence' | 'origin'>) =>
  `${task.organizationId}#${task.endpointId}#${padSequence(task.sequence)}#${task.origin}`;

export function taskDueKeys(
  task: Pick<DeliveryTask, 'organizationId' | 'endpointId' | 'sequence' | 'origin'>,
  sweepAtMs: number,
): { gsi1pk: string; gsi1sk: string } {
  const identity = taskIdentity(task);
  return { gsi1pk: webhookIndexKeys.dueTasksShard(activeJobShardOf(identity)), gsi1sk: dueSortKey(sweepAtMs, identity) };
}

export function replayDueKeys(replay: Pick<Replay, 'organizationId' | 'id'>, sweepAtMs: number): { gsi1pk: string; gsi1sk: string } {
  const identity = `${replay.organizationId}#${replay.id}`;
  return { gsi1pk: webhookIndexKeys.runningReplaysShard(activeJobShardOf(identity)), gsi1sk: dueSortKey(sweepAtMs, identity) };
}

/** A replay's task (origin = the replay id) counts against its organization's cap until it ends. */
export function replayTaskKeys(
  task: Pick<DeliveryTask, 'organizationId' | 'endpointId' | 'sequence' | 'origin'>,
): { gsi2pk: string; gsi2sk: string } | Record<string, never> {
  if (task.origin === 'live') return {};
  return { gsi2pk: webhookIndexKeys.replayTasksInFlightOf(task.organizationId), gsi2sk: taskIdentity(task) };
}

/** The index attributes a task gives up when it ends. */
export const FINISHED_TASK_ATTRIBUTES = ['gsi1pk', 'gsi1sk', 'gsi2pk', 'gsi2sk'] as const;
