import { ACTIVE_JOB_SHARDS, activeJobShardOf } from './keys.ts';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documentClient } from '../aws/dynamodb-client.ts';
import { batchGet, queryAll } from './entity.ts';
import { ACTIVE_JOBS_INDEX } from '../storage/tables.ts';

/**
 * The one way a background job (import, export, build) enters, leaves and is read from the sharded,
 * keys-only active-jobs index (lib/platform/storage/tables.ts `ACTIVE_JOBS_INDEX`, docs/operations.md
 * "Workers (import queue and sweepers)"). Each flow has its own shard partitions (`shardKey`), so
 * one flow's sweeper never reads another's jobs. The flows call it through their one job store
 * (lib/platform/dynamo/job-store.ts).
 */

/** A flow's shard partition key of shard `shard` (declared with the flow's job, in lib/<area>/store/entities.ts). */
export type ShardKey = (shard: number) => string;

/** Items per page of the sweeper's index reads; it reads every page. */
export const SWEEP_PAGE_SIZE = 100;

/**
 * The attributes that place a job in an index (gsi1's dispatch partition or the active-jobs
 * index): removed together once it has ended.
 */
export const JOB_INDEX_ATTRIBUTES = `gsi1pk, gsi1sk, ${ACTIVE_JOBS_INDEX.partitionKey.name}, ${ACTIVE_JOBS_INDEX.sortKey.name}`;

/** A job's entry: its shard (by a hash of its id, so tenants spread evenly) and its own name. */
export function activeJobIndexKeys(shardKey: ShardKey, organizationId: string, jobId: string): { activeShard: string; activeJob: string } {
  return { activeShard: shardKey(activeJobShardOf(jobId)), activeJob: `${organizationId}#${jobId}` };
}

/**
 * The items of every job in a flow's active-jobs entries: every shard, page by page, then the
 * items themselves (BatchGetItem; the index holds keys only). Also reads gsi1's `legacyPartition`,
 * where jobs dispatched before the index was sharded still sit until they end (when the flow has one).
 */
export async function activeJobItems(tableName: string, shardKey: ShardKey, legacyPartition?: string): ReturnType<typeof batchGet> {
  const shards = Array.from({ length: ACTIVE_JOB_SHARDS }, (_, shard) =>
    queryAll({
      TableName: tableName,
      IndexName: ACTIVE_JOBS_INDEX.indexName,
      KeyConditionExpression: '#shard = :shard',
      ExpressionAttributeNames: { '#shard': ACTIVE_JOBS_INDEX.partitionKey.name },
      ExpressionAttributeValues: { ':shard': shardKey(shard) },
      Limit: SWEEP_PAGE_SIZE,
    }),
  );
  // A flow born after the index was sharded has no legacy partition.
  const legacy =
    legacyPartition === undefined
      ? Promise.resolve([])
      : queryAll({
          TableName: tableName,
          IndexName: 'gsi1',
          KeyConditionExpression: 'gsi1pk = :pk',
          ExpressionAttributeValues: { ':pk': legacyPartition },
          Limit: SWEEP_PAGE_SIZE,
        });
  const entries = (await Promise.all([...shards, legacy])).flat();
  return batchGet(
    tableName,
    entries.map((entry) => ({ pk: entry.pk as string, sk: entry.sk as string })),
  );
}

/**
 * The queue has the job: it leaves the dispatch index for its active-jobs entry (or leaves both
 * indexes, when a fast worker already finished it). The entry is written here and removed when
 * the job ends, never in between: a checkpoint rewrites the job item, not the keys-only index.
 */
export async function markJobDispatched(tableName: string, key: Record<string, string>, active: { activeShard: string; activeJob: string }): Promise<void> {
  try {
    await documentClient.send(
      new UpdateCommand({
        TableName: tableName,
        Key: key,
        UpdateExpression: 'SET activeShard = :shard, activeJob = :active REMOVE gsi1pk, gsi1sk',
        ConditionExpression: '#job.#status IN (:queued, :processing)',
        ExpressionAttributeNames: { '#job': 'job', '#status': 'status' },
        ExpressionAttributeValues: { ':shard': active.activeShard, ':active': active.activeJob, ':queued': 'queued', ':processing': 'processing' },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    await documentClient.send(
      new UpdateCommand({ TableName: tableName, Key: key, UpdateExpression: `REMOVE ${JOB_INDEX_ATTRIBUTES}`, ConditionExpression: 'attribute_exists(pk)' }),
    );
  }
}
