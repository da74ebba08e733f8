import type { DuplicateStrategy, RowError } from './types.ts';
import { SQS_MAX_MESSAGE_RETENTION_DAYS } from '../../platform/jobs/queue-limits.ts';
import { JOB_ABANDONED_AFTER_SECONDS } from '../../platform/jobs/sweep-jobs.ts';

/** Import jobs (docs/imports.md "The job"): queued → processing → succeeded | completed_with_errors | failed. */

export const JOB_STATUSES = ['queued', 'processing', 'succeeded', 'completed_with_errors', 'failed'] as const;
export type JobStatus = (typeof JOB_STATUSES)[number];

export const FINISHED_STATUSES: readonly JobStatus[] = ['succeeded', 'completed_with_errors', 'failed'];

export interface JobCounts {
  totalRows: number;
  processedRows: number;
  created: number;
  updated: number;
  skipped: number;
  failed: number;
}

export interface JobFailure {
  code: string;
  message: string;
}

export interface ColumnWarning {
  column: string;
  code: string;
  message: string;
}

/** The job as the API shows it. */
export interface ImportJob {
  id: string;
  kind: string;
  duplicateStrategy: DuplicateStrategy;
  /** A dry run decides every row as a real run would and writes nothing but the job (docs/imports.md "Dry runs"). */
  dryRun: boolean;
  status: JobStatus;
  fileName: string;
  fileSizeBytes: number;
  fileSha256: string;
  submittedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  counts: JobCounts;
  failure: JobFailure | null;
  warnings: ColumnWarning[];
}

/** The job as stored: the public record plus what the pipeline needs to resume. */
export interface ImportJobState extends Omit<ImportJob, 'dryRun'> {
  /** Absent on jobs stored before dry runs existed: those were real runs. */
  dryRun?: boolean;
  organizationId: string;
  /** Object key of the uploaded file. */
  fileKey: string;
  /**
   * The row number up to which rows have been applied (0 before the first chunk). Rows are
   * applied in row order, and each chunk commits only from the checkpoint it read.
   */
  checkpoint: number;
  /** Row errors stored so far, and those counted but not stored (beyond the cap of docs/imports.md "Row errors"). */
  storedErrors?: number;
  unstoredErrors?: number;
  /** Last sign of life: submission, start, each committed chunk. Only a job without progress for longer than the queue keeps a message is failed as abandoned. */
  progressAt?: string;
  /** For a dry run: the overlay objects of the committed chunks (lib/imports/domain/pipeline/dry-run.ts); absent before the first. */
  dryRunOverlay?: DryRunOverlayPointer;
}

/** The segment of a dry run's overlay objects, and how many of its objects committed chunks wrote. */
export interface DryRunOverlayPointer {
  segment: string;
  objects: number;
}

/**
 * At most this many row errors are stored per job (docs/imports.md "Row errors"); every failed
 * row is still counted, and `GET …/errors` says how many errors were not stored.
 */
export const MAX_STORED_ROW_ERRORS = 10_000;

/** What one committed chunk adds to its job. */
export interface ChunkProgress {
  counts: Partial<JobCounts>;
  storedErrors: number;
  unstoredErrors: number;
}

/** How long the import queue keeps a message (SQS's maximum): a job's message can wait this long. */
export const IMPORT_MESSAGE_RETENTION_DAYS = SQS_MAX_MESSAGE_RETENTION_DAYS;

/** An import without progress for this long is failed as abandoned (lib/platform/jobs/sweep-jobs.ts). */
export const IMPORT_ABANDONED_AFTER_SECONDS = JOB_ABANDONED_AFTER_SECONDS;

/**
 * A job and its row errors are kept this long after submission, then expire together
 * (docs/imports.md "Retention"): far beyond the longest a job can stay unfinished
 * (`IMPORT_ABANDONED_AFTER_SECONDS`), so no running job ever expires.
 */
export const IMPORT_JOB_RETENTION_DAYS = 90;

/** When a job and its row errors expire, in epoch seconds (DynamoDB TTL's unit). */
export function jobExpiresAtEpochSeconds(job: Pick<ImportJob, 'submittedAt'>): number {
  return Math.floor(Date.parse(job.submittedAt) / 1000) + IMPORT_JOB_RETENTION_DAYS * 86_400;
}

/** TTL deletes within days of the expiry, not at it: reads treat an expired job as gone from the expiry on. */
export function isJobExpired(job: Pick<ImportJob, 'submittedAt'>, now: Date): boolean {
  return now.getTime() >= jobExpiresAtEpochSeconds(job) * 1000;
}

export const EMPTY_COUNTS: JobCounts = { totalRows: 0, processedRows: 0, created: 0, updated: 0, skipped: 0, failed: 0 };

export function isFinished(status: JobStatus): boolean {
  return FINISHED_STATUSES.includes(status);
}

/** The API view, always in the documented field order (storage does not keep key order). */
export function publicJob(state: ImportJobState): ImportJob {
  const { counts } = state;
  return {
    id: state.id,
    kind: state.kind,
    duplicateStrategy: state.duplicateStrategy,
    dryRun: state.dryRun ?? false,
    status: state.status,
    fileName: state.fileName,
    fileSizeBytes: state.fileSizeBytes,
    fileSha256: state.fileSha256,
    submittedAt: state.submittedAt,
    startedAt: state.startedAt ?? null,
    completedAt: state.completedAt ?? null,
    counts: {
      totalRows: counts.totalRows,
      processedRows: counts.processedRows,
      created: counts.created,
      updated: counts.updated,
      skipped: counts.skipped,
      failed: counts.failed,
    },
    failure: state.failure ? { code: state.failure.code, message: state.failure.message } : null,
    warnings: state.warnings.map((warning) => ({ column: warning.column, code: warning.code, message: warning.message })),
  };
}

/** The final status once every row was handled. */
export function finalStatus(counts: JobCounts): JobStatus {
  return counts.failed > 0 ? 'completed_with_errors' : 'succeeded';
}

export type { RowError };
