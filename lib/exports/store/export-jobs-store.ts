import { exportExpiresAt, exportTtlEpochSeconds } from '../domain/job.ts';
import type { ExportFailure, ExportJobState, ExportProgress } from '../domain/job.ts';
import { JOB_INDEX_ATTRIBUTES } from '../../platform/dynamo/active-jobs-index.ts';
import { JobStore } from '../../platform/dynamo/job-store.ts';
import { exportJobDeclaration, exportJobIndexKeys } from './entities.ts';
import { ChunkAlreadyAppliedError } from '../../imports/store/index.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Export jobs in the inventory table (docs/exports.md "Routes"), on the flows' one job store
 * (lib/platform/dynamo/job-store.ts). As an import job, a job waiting for its hand-off sits in a
 * sparse dispatch index, then in the sharded, keys-only active-jobs index
 * (lib/platform/dynamo/active-jobs-index.ts) until it finishes; the sweeper reads both. Every progress write is conditioned on the part count it read, and
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

export class ExportJobsStore extends JobStore<ExportJobState> {
  constructor(tableName: string) {
    super(tableName, exportJobDeclaration);
  }

  createWrite(job: ExportJobState): StoreWrite {
    return this.newJobWrite(job, { job, ...exportJobIndexKeys.pendingDispatch(job), ttl: exportTtlEpochSeconds(job) });
  }

  /** queued → processing with the upload and the sequence the file reflects; another delivery that started first wins. */
  async start(job: ExportJobState, progress: ExportProgress, asOfEventId: string | null, now: string): Promise<{ job: ExportJobState; won: boolean }> {
    return this.startOnce(job, { ...job, status: 'processing', startedAt: now, progress, asOfEventId, progressAt: now });
  }

  /** The progress after one more part; commits only while the job still has `partsBefore` parts. */
  checkpointWrite(job: ExportJobState, partsBefore: number, progress: ExportProgress, rowCount: number): StoreWrite {
    return {
      item: {
        Update: {
          TableName: this.tableName,
          Key: this.key(job.organizationId, job.id),
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
          Key: this.key(job.organizationId, job.id),
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
