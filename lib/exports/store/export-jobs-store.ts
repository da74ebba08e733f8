import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { exportExpiresAt, exportTtlEpochSeconds, isExportFinished } from '../domain/job.ts';
import type { ExportFailure, ExportJobState, ExportProgress } from '../domain/job.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { activeJobItems, JOB_INDEX_ATTRIBUTES, SWEEP_PAGE_SIZE, markJobDispatched } from '../../platform/dynamo/active-jobs-index.ts';
import { entityItem, queryAll } from '../../platform/dynamo/entity.ts';
import { exportJobEntity, exportJobIndexKeys } from './entities.ts';
import { ChunkAlreadyAppliedError } from '../../imports/store/index.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Export jobs in the inventory table (docs/exports.md "Routes"). As an import job, a job waiting
 * for its hand-off sits in a sparse dispatch index, then in the sharded, keys-only active-jobs
 * index (lib/platform/dynamo/active-jobs-index.ts) until it finishes;
 * the sweeper reads both. Every progress write is conditioned on the part count it read, and
 * fails with the shared `ChunkAlreadyAppliedError` when another delivery moved the job on
 * (lib/platform/jobs/checkpoint.ts).
 */

export interface ExportCompletion {
  rowCount: number;
  fileSizeBytes: number;
  sha256: string;
  asOfEventId: string | null;
  completedAt: string;
  expiresAt: string;
}

export class ExportJobsStore {
  constructor(private readonly tableName: string) {}

  private key(job: Pick<ExportJobState, 'organizationId' | 'id'>) {
    return exportJobEntity.key({ organizationId: job.organizationId, jobId: job.id });
  }

  createWrite(job: ExportJobState): StoreWrite {
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: entityItem(
            exportJobEntity,
            { organizationId: job.organizationId, jobId: job.id },
            { job, ...exportJobIndexKeys.pendingDispatch(job), ttl: exportTtlEpochSeconds(job) },
          ),
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    };
  }

  async get(organizationId: string, jobId: string): Promise<ExportJobState | undefined> {
    const result = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: exportJobEntity.key({ organizationId, jobId }), ConsistentRead: true }),
    );
    return result.Item?.job as ExportJobState | undefined;
  }

  /**
   * The queue has the job: from the dispatch index to the active-jobs index (or out of both when
   * it already finished). The entry is written here and removed when the job ends, never in
   * between: a part's checkpoint rewrites the job item, not the keys-only index.
   */
  async markDispatched(organizationId: string, jobId: string): Promise<void> {
    await markJobDispatched(this.tableName, exportJobEntity.key({ organizationId, jobId }), exportJobIndexKeys.active(organizationId, jobId));
  }

  /** Unfinished jobs handed to the queue: every shard of the flow's active-jobs entries, then the jobs. */
  async activeJobs(): Promise<ExportJobState[]> {
    const items = await activeJobItems(this.tableName, exportJobIndexKeys.activeShard, exportJobIndexKeys.legacyActivePartition);
    return items.map((item) => item.job as ExportJobState).filter((job) => job !== undefined && !isExportFinished(job.status));
  }

  async pendingDispatch(cutoff: string): Promise<Array<{ organizationId: string; jobId: string }>> {
    const items = await queryAll({
      TableName: this.tableName,
      IndexName: 'gsi1',
      KeyConditionExpression: 'gsi1pk = :pk AND gsi1sk < :cutoff',
      ExpressionAttributeValues: { ':pk': exportJobIndexKeys.pendingPartition, ':cutoff': cutoff },
      Limit: SWEEP_PAGE_SIZE,
    });
    return items.map((item) => ({ organizationId: (item.job as ExportJobState).organizationId, jobId: (item.job as ExportJobState).id }));
  }

  /** queued → processing with the upload and the sequence the file reflects; another delivery that started first wins. */
  async start(job: ExportJobState, progress: ExportProgress, asOfEventId: string | null, now: string): Promise<{ job: ExportJobState; won: boolean }> {
    const started: ExportJobState = { ...job, status: 'processing', startedAt: now, progress, asOfEventId, progressAt: now };
    try {
      await documentClient.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: this.key(job),
          UpdateExpression: 'SET #job = :job',
          ConditionExpression: '#job.#status = :queued',
          ExpressionAttributeNames: { '#job': 'job', '#status': 'status' },
          ExpressionAttributeValues: { ':job': started, ':queued': 'queued' },
        }),
      );
      return { job: started, won: true };
    } catch (error) {
      if (!(error instanceof ConditionalCheckFailedException)) throw error;
      const current = await this.get(job.organizationId, job.id);
      if (!current) throw error;
      return { job: current, won: false };
    }
  }

  /** The progress after one more part; commits only while the job still has `partsBefore` parts. */
  checkpointWrite(job: ExportJobState, partsBefore: number, progress: ExportProgress, rowCount: number): StoreWrite {
    return {
      item: {
        Update: {
          TableName: this.tableName,
          Key: this.key(job),
          UpdateExpression: 'SET #job.progress = :progress, #job.rowCount = :rows, #job.progressAt = :now',
          ConditionExpression: 'size(#job.progress.parts) = :before AND #job.#status = :processing',
          ExpressionAttributeNames: { '#job': 'job', '#status': 'status' },
          ExpressionAttributeValues: {
            ':progress': progress,
            ':rows': rowCount,
            ':now': new Date().toISOString(),
            ':before': partsBefore,
            ':processing': 'processing',
          },
        },
      },
      onConditionFailed: () => new ChunkAlreadyAppliedError(`Export ${job.id} is no longer at part ${partsBefore}`),
    };
  }

  /** The final state: succeeded with its file, or failed; only from queued or processing. Leaves the sweeper's indexes. */
  finishWrite(
    job: ExportJobState,
    outcome: { status: 'succeeded'; completion: ExportCompletion } | { status: 'failed'; failure: ExportFailure; completedAt: string },
  ): StoreWrite {
    const completedAt = outcome.status === 'succeeded' ? outcome.completion.completedAt : outcome.completedAt;
    const finished: ExportJobState =
      outcome.status === 'succeeded'
        ? { ...job, status: 'succeeded', ...outcome.completion, startedAt: job.startedAt ?? completedAt, failure: null }
        : { ...job, status: 'failed', failure: outcome.failure, completedAt, expiresAt: exportExpiresAt(completedAt), startedAt: job.startedAt ?? completedAt };
    return {
      item: {
        Update: {
          TableName: this.tableName,
          Key: this.key(job),
          UpdateExpression: `SET #job = :job, #ttl = :ttl REMOVE ${JOB_INDEX_ATTRIBUTES}`,
          ConditionExpression: '#job.#status IN (:queued, :processing)',
          ExpressionAttributeNames: { '#job': 'job', '#status': 'status', '#ttl': 'ttl' },
          ExpressionAttributeValues: { ':job': finished, ':ttl': exportTtlEpochSeconds(finished), ':queued': 'queued', ':processing': 'processing' },
        },
      },
      onConditionFailed: () => new ChunkAlreadyAppliedError(`Export ${job.id} is already finished`),
    };
  }
}
