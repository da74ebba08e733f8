import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as sweepHandler } from '../../functions/workers/sweep-import-jobs.ts';
import { ABANDONED_FAILURE } from '../../lib/imports/domain/job-failures.ts';
import { documentClient } from '../../lib/platform/aws/clients.ts';
import { ACTIVE_JOB_SHARDS, activeJobShardOf } from '../../lib/platform/dynamo/keys.ts';
import { importJobIndexKeys } from '../../lib/imports/store/entities.ts';
import { ACTIVE_JOBS_INDEX } from '../../lib/platform/storage/tables.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName } from '../support/events.ts';
import { commitQueuedJob, importJobsStore, itemsCsv, storedJob } from '../support/imports.ts';

/**
 * The active-jobs index (docs/operations.md "Workers (import queue and sweepers)"): sparse, keys only, spread
 * over ACTIVE_JOB_SHARDS partitions by job id, written when a job is handed to the queue and when
 * it ends, never by a chunk's checkpoint; the sweeper pages every shard.
 */

const ABANDONED_AGO = new Date(Date.now() - 15 * 86_400_000);

async function indexEntriesOf(jobIds: ReadonlySet<string>): Promise<Array<Record<string, unknown>>> {
  const entries: Array<Record<string, unknown>> = [];
  for (let shard = 0; shard < ACTIVE_JOB_SHARDS; shard += 1) {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName('inventory'),
        IndexName: ACTIVE_JOBS_INDEX.indexName,
        KeyConditionExpression: '#shard = :shard',
        ExpressionAttributeNames: { '#shard': ACTIVE_JOBS_INDEX.partitionKey.name },
        ExpressionAttributeValues: { ':shard': importJobIndexKeys.activeShard(shard) },
      }),
    );
    entries.push(...(page.Items ?? []).filter((item) => jobIds.has(String(item[ACTIVE_JOBS_INDEX.sortKey.name]).split('#')[1] ?? '')));
  }
  return entries;
}

describe('the active-jobs index', () => {
  it('the sweeper still finds and fails stuck jobs in every shard, and leaves young ones', { timeout: 120_000 }, async () => {
    // Prepare: 48 dispatched jobs without progress for 15 days, spread over the shards, and one young job
    const organizationId = uniqueOrganization();
    const stuck = await Promise.all(
      Array.from({ length: 48 }, () => commitQueuedJob(organizationId, { file: itemsCsv(1, 'STUCK'), submittedAt: ABANDONED_AGO })),
    );
    const young = await commitQueuedJob(organizationId, { file: itemsCsv(1, 'YOUNG') });
    const shards = new Set(stuck.map(({ job }) => activeJobShardOf(job.id)));

    // Act
    const before = await indexEntriesOf(new Set(stuck.map(({ job }) => job.id)));
    await sweepHandler();

    // Assess: every stuck job was found, whatever its shard
    expect(shards.size).toBeGreaterThan(ACTIVE_JOB_SHARDS / 2);
    expect(before).toHaveLength(48);
    for (const { job } of stuck) expect(await storedJob(organizationId, job.id)).toMatchObject({ status: 'failed', failure: ABANDONED_FAILURE });
    expect((await storedJob(organizationId, young.job.id)).status).toBe('queued');
    expect(await indexEntriesOf(new Set(stuck.map(({ job }) => job.id)))).toEqual([]);
    expect((await importJobsStore().activeJobs()).map((job) => job.id)).toContain(young.job.id);
  });

  it('holds keys only, and a chunk checkpoint writes neither its key nor its entry', async () => {
    // Prepare: a dispatched job, started
    const organizationId = uniqueOrganization();
    const { job } = await commitQueuedJob(organizationId, { file: itemsCsv(3, 'CKPT') });
    const jobs = importJobsStore();
    const started = await jobs.start(await storedJob(organizationId, job.id), { totalRows: 3, warnings: [] }, new Date().toISOString());
    const [entry] = await indexEntriesOf(new Set([job.id]));

    // Act: a chunk's checkpoint, committed as the worker commits it
    const checkpoint = jobs.checkpointWrite(started, 0, 2, { counts: { processedRows: 2, created: 2 }, storedErrors: 0, unstoredErrors: 0 });
    const committed = await documentClient.send(new TransactWriteCommand({ TransactItems: [checkpoint.item], ReturnConsumedCapacity: 'INDEXES' }));

    // Assess: the entry names the job and nothing else; the checkpoint touched no index
    expect(Object.keys(entry ?? {}).sort()).toEqual(['pk', 'sk', ACTIVE_JOBS_INDEX.partitionKey.name, ACTIVE_JOBS_INDEX.sortKey.name].sort());
    expect(entry?.[ACTIVE_JOBS_INDEX.partitionKey.name]).toBe(importJobIndexKeys.activeShard(activeJobShardOf(job.id)));
    const update = checkpoint.item.Update;
    expect(`${update?.UpdateExpression}`).not.toMatch(new RegExp(`${ACTIVE_JOBS_INDEX.partitionKey.name}|${ACTIVE_JOBS_INDEX.sortKey.name}|gsi1`));
    expect((committed.ConsumedCapacity ?? []).flatMap((capacity) => Object.keys(capacity.GlobalSecondaryIndexes ?? {}))).toEqual([]);
    expect((await storedJob(organizationId, job.id)).checkpoint).toBe(2);
    expect(await indexEntriesOf(new Set([job.id]))).toEqual([entry]);
  });
});
