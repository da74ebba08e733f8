import { QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { handler as sweepHandler } from '../../functions/workers/sweep-export-jobs.ts';
import type { ExportJobState, ExportProgress } from '../../lib/exports/domain/job.ts';
import { ExportSubmitter } from '../../lib/exports/domain/submit.ts';
import { documentClient } from '../../lib/platform/aws/clients.ts';
import { exportJobEntity, exportJobIndexKeys } from '../../lib/exports/store/entities.ts';
import { importJobIndexKeys } from '../../lib/imports/store/entities.ts';
import { ExportJobsStore } from '../../lib/exports/store/export-jobs-store.ts';
import { ACTIVE_JOB_SHARDS, activeJobShardOf } from '../../lib/platform/dynamo/keys.ts';
import { ACTIVE_JOBS_INDEX } from '../../lib/platform/storage/tables.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';

/**
 * Export jobs in the active-jobs index (docs/operations.md "Workers (import queue and
 * sweepers)"): the export flow's own shards of the sparse, keys-only index, written when a job is
 * handed to the queue and when it ends, never by a part's checkpoint; the export sweeper pages
 * every shard.
 */

const ABANDONED_AGO = new Date(Date.now() - 15 * 86_400_000);
const jobs = () => new ExportJobsStore(tableName('inventory'));

/**
 * Commits an export job as submission does, already marked handed to the queue (as
 * `markDispatched` leaves it) in the same transaction, without sending it: a backdated job that
 * sat in the dispatch index even for a moment would be sent by the test server's own sweeper.
 */
async function dispatchedExport(organizationId: string, submittedAt = new Date()): Promise<ExportJobState> {
  const plan = new ExportSubmitter<StoreWrite>({ jobs: jobs(), queue: { send: async () => undefined } }).prepare(
    organizationId,
    { kind: 'items', format: 'csv', filters: {} },
    submittedAt,
  );
  const writes = plan.writes.map((write) => {
    const item = write.item.Put?.Item;
    if (item?.entity !== exportJobEntity.type) return write;
    const { gsi1pk: _pending, gsi1sk: _pendingAt, ...dispatched } = item;
    return {
      ...write,
      item: {
        Put: {
          ...write.item.Put,
          TableName: write.item.Put?.TableName ?? '',
          Item: { ...dispatched, ...exportJobIndexKeys.active(organizationId, plan.result.id) },
        },
      },
    };
  });
  await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'export-index-tests' }, traceId: null }, async () => ({ ...plan, writes }));
  return plan.result;
}

async function exportEntriesOf(jobIds: ReadonlySet<string>): Promise<Array<Record<string, unknown>>> {
  const entries: Array<Record<string, unknown>> = [];
  for (let shard = 0; shard < ACTIVE_JOB_SHARDS; shard += 1) {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName('inventory'),
        IndexName: ACTIVE_JOBS_INDEX.indexName,
        KeyConditionExpression: '#shard = :shard',
        ExpressionAttributeNames: { '#shard': ACTIVE_JOBS_INDEX.partitionKey.name },
        ExpressionAttributeValues: { ':shard': exportJobIndexKeys.activeShard(shard) },
      }),
    );
    entries.push(...(page.Items ?? []).filter((item) => jobIds.has(String(item[ACTIVE_JOBS_INDEX.sortKey.name]).split('#')[1] ?? '')));
  }
  return entries;
}

describe('export jobs in the active-jobs index', () => {
  it('the export sweeper finds and fails stuck exports in every shard, and leaves young ones', { timeout: 120_000 }, async () => {
    // Prepare: 40 dispatched exports without progress for 15 days, spread over the shards, and one young export
    const organizationId = uniqueOrganization();
    const stuck = await Promise.all(Array.from({ length: 40 }, () => dispatchedExport(organizationId, ABANDONED_AGO)));
    const young = await dispatchedExport(organizationId);
    const stuckIds = new Set(stuck.map((job) => job.id));

    // Act
    const before = await exportEntriesOf(stuckIds);
    await sweepHandler();

    // Assess: every stuck export was found and failed whatever its shard, and left the index
    expect(new Set(stuck.map((job) => activeJobShardOf(job.id))).size).toBeGreaterThan(ACTIVE_JOB_SHARDS / 2);
    expect(before).toHaveLength(40);
    for (const job of stuck) expect((await jobs().get(organizationId, job.id))?.status).toBe('failed');
    expect((await jobs().get(organizationId, young.id))?.status).toBe('queued');
    expect(await exportEntriesOf(stuckIds)).toEqual([]);
    expect((await jobs().activeJobs()).map((job) => job.id)).toContain(young.id);
  });

  it('holds keys only in the export shards, and a part checkpoint writes no index', async () => {
    // Prepare: a dispatched export, started
    const organizationId = uniqueOrganization();
    const job = await dispatchedExport(organizationId);
    const progress: ExportProgress = { uploadId: 'upload-of-test', asOfSequence: 0, parts: [], sourceDone: false, bytes: 0 };
    const { job: started } = await jobs().start(job, progress, null, new Date().toISOString());
    const [entry] = await exportEntriesOf(new Set([job.id]));

    // Act: a part's checkpoint, committed as the worker commits it
    const checkpoint = jobs().checkpointWrite(
      started,
      0,
      { ...progress, parts: [{ partNumber: 1, etag: '"etag-1"' }], position: 'after-first', bytes: 1024 },
      4,
    );
    const committed = await documentClient.send(new TransactWriteCommand({ TransactItems: [checkpoint.item], ReturnConsumedCapacity: 'INDEXES' }));

    // Assess: the entry names the job and nothing else, in the export shards; the checkpoint touched no index
    expect(Object.keys(entry ?? {}).sort()).toEqual(['pk', 'sk', ACTIVE_JOBS_INDEX.partitionKey.name, ACTIVE_JOBS_INDEX.sortKey.name].sort());
    expect(entry?.[ACTIVE_JOBS_INDEX.partitionKey.name]).toBe(exportJobIndexKeys.activeShard(activeJobShardOf(job.id)));
    expect(entry?.[ACTIVE_JOBS_INDEX.partitionKey.name]).not.toBe(importJobIndexKeys.activeShard(activeJobShardOf(job.id)));
    expect(`${checkpoint.item.Update?.UpdateExpression}`).not.toMatch(
      new RegExp(`${ACTIVE_JOBS_INDEX.partitionKey.name}|${ACTIVE_JOBS_INDEX.sortKey.name}|gsi1`),
    );
    expect((committed.ConsumedCapacity ?? []).flatMap((capacity) => Object.keys(capacity.GlobalSecondaryIndexes ?? {}))).toEqual([]);
    expect((await jobs().get(organizationId, job.id))?.rowCount).toBe(4);
    expect(await exportEntriesOf(new Set([job.id]))).toEqual([entry]);
  });
});
