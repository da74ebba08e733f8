import { jobExpiresAtEpochSeconds } from '../domain/job.ts';
import type { ChunkProgress, DryRunOverlayPointer, ImportJobState, JobFailure, ColumnWarning, JobStatus } from '../domain/job.ts';
import type { RowError } from '../domain/types.ts';
import { JOB_INDEX_ATTRIBUTES } from '../../platform/dynamo/active-jobs-index.ts';
import { entityItem, readPage, sortKeyRange } from '../../platform/dynamo/entity.ts';
import { JobStore } from '../../platform/dynamo/job-store.ts';
import { importJobDeclaration, importJobIndexKeys, importRowErrorEntity, importRowErrorsOf, ROW_ERROR_PREFIX } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Import jobs and their row errors in the inventory table, on the flows' one job store
 * (lib/platform/dynamo/job-store.ts: the reads, the start and the sweeper's indexes). A job waiting
 * to be handed to the queue sits in a sparse index until the send is confirmed, then in the
 * sharded active-jobs index until it ends; the sweeper reads both.
 */

export class ChunkAlreadyAppliedError extends Error {
  override name = 'ChunkAlreadyAppliedError';
}

/** Cell values come from the file: a row error keeps the first characters of a huge cell. */
export const ROW_ERROR_VALUE_MAX = 256;
const ROW_ERROR_MESSAGE_MAX = 1000;

function clipText(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}…` : text;
}

/**
 * A row error as stored: value clipped (an item must stay far below DynamoDB's 400 KB and a
 * page of errors below Lambda's 6 MB response), an empty cell as null ("no value"; DynamoDB
 * Local also refuses '').
 */
export function storableRowError(error: RowError): RowError {
  const value = error.value === '' || error.value === null ? null : clipText(error.value, ROW_ERROR_VALUE_MAX);
  return { ...error, column: error.column === null ? null : clipText(error.column, 100), value, message: clipText(error.message, ROW_ERROR_MESSAGE_MAX) };
}

export class ImportJobsStore extends JobStore<ImportJobState> {
  constructor(tableName: string) {
    super(tableName, importJobDeclaration);
  }

  createWrite(job: ImportJobState): StoreWrite {
    return this.newJobWrite(job, { job, ...importJobIndexKeys.pendingDispatch(job), ttl: jobExpiresAtEpochSeconds(job) });
  }

  /**
   * queued → processing with the file's totals; a redelivery of a started job changes nothing.
   * Rows are counted later, as the chunks that handle them commit.
   */
  async start(job: ImportJobState, totals: { totalRows: number; warnings: ColumnWarning[] }, now: string): Promise<ImportJobState> {
    if (job.status !== 'queued') return job;
    const started: ImportJobState = {
      ...job,
      status: 'processing',
      startedAt: now,
      counts: { ...job.counts, totalRows: totals.totalRows },
      warnings: totals.warnings,
      storedErrors: 0,
      unstoredErrors: 0,
      progressAt: now,
    };
    // A simultaneous delivery that started it first wins: carry on from its state (chunks stay exactly-once).
    return (await this.startOnce(job, started)).job;
  }

  /**
   * The progress item of one chunk: it commits only if the job is still at `from`, so a chunk
   * that a redelivered message tries again can never apply (or count, or list its errors) twice.
   */
  checkpointWrite(job: ImportJobState, from: number, to: number, progress: ChunkProgress, dryRunOverlay?: DryRunOverlayPointer): StoreWrite {
    const sets = ['#job.checkpoint = :to', '#job.progressAt = :now'];
    const values: Record<string, unknown> = { ':from': from, ':to': to, ':processing': 'processing', ':now': new Date().toISOString() };
    if (dryRunOverlay) {
      // With the checkpoint, in one item: the pointer names exactly the chunks that committed.
      sets.push('#job.dryRunOverlay = :overlay');
      values[':overlay'] = { segment: dryRunOverlay.segment, objects: dryRunOverlay.objects };
    }
    // Count names go through attribute names: some (e.g. `updated`) are not valid bare in an expression.
    const names: Record<string, string> = { '#job': 'job', '#status': 'status' };
    const add = (path: string, field: string, amount: number | undefined) => {
      if (!amount) return;
      // A job started before these counters existed has no attribute to add to.
      sets.push(`${path}#${field} = if_not_exists(${path}#${field}, :zero) + :${field}`);
      values[':zero'] = 0;
      names[`#${field}`] = field;
      values[`:${field}`] = amount;
    };
    for (const [field, amount] of Object.entries(progress.counts)) add('#job.counts.', field, amount);
    add('#job.', 'storedErrors', progress.storedErrors);
    add('#job.', 'unstoredErrors', progress.unstoredErrors);
    return {
      item: {
        Update: {
          TableName: this.tableName,
          Key: this.key(job.organizationId, job.id),
          UpdateExpression: `SET ${sets.join(', ')}`,
          ConditionExpression: '#job.checkpoint = :from AND #job.#status = :processing',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
        },
      },
      onConditionFailed: () => new ChunkAlreadyAppliedError(`Job ${job.id} is no longer at checkpoint ${from}`),
    };
  }

  /** The final status; only from `processing` (or `queued`, for a file that never started). */
  finishWrite(job: ImportJobState, status: JobStatus, failure: JobFailure | null, now: string): StoreWrite {
    return {
      item: {
        Update: {
          TableName: this.tableName,
          Key: this.key(job.organizationId, job.id),
          UpdateExpression:
            // A job failed straight from queued never started: it starts and ends now. (The stored
            // startedAt is a NULL then, which if_not_exists would keep.)
            `SET #job.#status = :status, #job.completedAt = :now, #job.failure = :failure, #job.startedAt = :startedAt REMOVE ${JOB_INDEX_ATTRIBUTES}`,
          ConditionExpression: '#job.#status IN (:queued, :processing)',
          ExpressionAttributeNames: { '#job': 'job', '#status': 'status' },
          ExpressionAttributeValues: {
            ':status': status,
            ':now': now,
            ':startedAt': job.startedAt ?? now,
            ':failure': failure,
            ':queued': 'queued',
            ':processing': 'processing',
          },
        },
      },
      onConditionFailed: () => new ChunkAlreadyAppliedError(`Job ${job.id} is already finished`),
    };
  }

  /**
   * One stored row error; a row's n-th error has index n (rows are handled once, so keys never
   * clash). It expires with its job (docs/imports.md "Retention").
   */
  rowErrorWrite(job: Pick<ImportJobState, 'organizationId' | 'id' | 'submittedAt'>, error: RowError, index: number): StoreWrite {
    const { organizationId, id: jobId } = job;
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: entityItem(
            importRowErrorEntity,
            { organizationId, jobId, rowNumber: error.rowNumber, index },
            { error: storableRowError(error), ttl: jobExpiresAtEpochSeconds(job) },
          ),
        },
      },
    };
  }

  /** Row errors in row order, after the position `after` (a sort key from a previous page). */
  async listRowErrors(
    organizationId: string,
    jobId: string,
    after: string | undefined,
    limit: number,
  ): Promise<{ errors: RowError[]; last?: string; more: boolean }> {
    const page = await readPage({
      tableName: this.tableName,
      partition: { name: 'pk', value: importRowErrorsOf(organizationId, jobId) },
      sortKey: { name: 'sk', ...sortKeyRange(ROW_ERROR_PREFIX) },
      after,
      limit,
    });
    const inOrder = ({ rowNumber, column, value, code, message }: RowError): RowError => ({ rowNumber, column, value, code, message });
    return { errors: page.items.map((item) => inOrder(item.error as RowError)), last: page.last, more: page.more };
  }
}
