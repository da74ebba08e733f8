import { EXPORT_OBJECT_PREFIX, EXPORT_RETENTION_DAYS } from '../../platform/storage/objects.ts';

/**
 * Export jobs (docs/exports.md "Routes"): queued → processing → succeeded | failed. A job and its
 * file expire `EXPORT_RETENTION_DAYS` after completion.
 */

export const EXPORT_FORMATS = ['csv', 'jsonl'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const EXPORT_STATUSES = ['queued', 'processing', 'succeeded', 'failed'] as const;
export type ExportStatus = (typeof EXPORT_STATUSES)[number];

/** Rows per file at most; an export reaching more fails with `too-many-rows`. */
export const MAX_EXPORT_ROWS = 5_000_000;

export { EXPORT_OBJECT_PREFIX, EXPORT_RETENTION_DAYS };

/** How long a minted download link works. */
export const EXPORT_DOWNLOAD_URL_TTL_SECONDS = 900;

/** A job never finished is kept this long after submission, then expires (far beyond any run). */
export const UNFINISHED_EXPORT_RETENTION_DAYS = 30;

export type ExportFilters = Record<string, string | boolean>;

export interface ExportFailure {
  code: string;
  message: string;
}

/** The job as the API shows it. */
export interface ExportJob {
  id: string;
  kind: string;
  format: ExportFormat;
  filters: ExportFilters;
  status: ExportStatus;
  rowCount: number;
  fileSizeBytes: number | null;
  sha256: string | null;
  asOfEventId: string | null;
  submittedAt: string;
  startedAt: string | null;
  completedAt: string | null;
  expiresAt: string | null;
  failure: ExportFailure | null;
}

/** A part of the multipart upload, committed with the source position it ends at. */
export interface UploadedPart {
  partNumber: number;
  etag: string;
}

/**
 * Where a running export is (docs/architecture.md "Exports"): the upload, the parts uploaded so
 * far with their ETags, and the source position after the last row of the last part. Committed
 * with each part, conditioned on the number of parts before it, so a part is recorded once and a
 * redelivery re-uploads (replaces) at most the part in flight.
 */
export interface ExportProgress {
  uploadId: string;
  /** The organization's committed event sequence when the export started: what the file reflects. */
  asOfSequence: number;
  parts: UploadedPart[];
  /** Source position after the last row written; absent before the first part. */
  position?: string;
  /** Every row is in a committed part: what is left is completing the upload. */
  sourceDone: boolean;
  bytes: number;
}

/** The job as stored: the public record plus what the worker needs to continue. */
export interface ExportJobState extends ExportJob {
  organizationId: string;
  objectKey: string;
  progress: ExportProgress | null;
  progressAt: string;
}

export function isExportFinished(status: ExportStatus): boolean {
  return status === 'succeeded' || status === 'failed';
}

export function exportObjectKey(organizationId: string, exportId: string, format: ExportFormat): string {
  return `${EXPORT_OBJECT_PREFIX}${organizationId}/${exportId}.${format}`;
}

export function exportFileName(job: Pick<ExportJob, 'kind' | 'id' | 'format'>): string {
  return `${job.kind}-${job.id}.${job.format}`;
}

export const EXPORT_CONTENT_TYPES: Record<ExportFormat, string> = { csv: 'text/csv; charset=utf-8', jsonl: 'application/x-ndjson; charset=utf-8' };

/** When a job completed at `completedAt` expires (ISO). */
export function exportExpiresAt(completedAt: string): string {
  return new Date(Date.parse(completedAt) + EXPORT_RETENTION_DAYS * 86_400_000).toISOString();
}

/** The TTL (epoch seconds) of a stored job: its expiry, or a bound for a job never finished. */
export function exportTtlEpochSeconds(job: Pick<ExportJob, 'submittedAt' | 'expiresAt'>): number {
  const until = job.expiresAt ?? new Date(Date.parse(job.submittedAt) + UNFINISHED_EXPORT_RETENTION_DAYS * 86_400_000).toISOString();
  return Math.floor(Date.parse(until) / 1000);
}

export function isExportExpired(job: Pick<ExportJob, 'expiresAt'>, now: Date): boolean {
  return job.expiresAt !== null && now.getTime() >= Date.parse(job.expiresAt);
}

/** The API view, in the documented field order. */
export function publicExport(state: ExportJob): ExportJob {
  return {
    id: state.id,
    kind: state.kind,
    format: state.format,
    filters: { ...state.filters },
    status: state.status,
    rowCount: state.rowCount,
    fileSizeBytes: state.fileSizeBytes ?? null,
    sha256: state.sha256 ?? null,
    asOfEventId: state.asOfEventId ?? null,
    submittedAt: state.submittedAt,
    startedAt: state.startedAt ?? null,
    completedAt: state.completedAt ?? null,
    expiresAt: state.expiresAt ?? null,
    failure: state.failure ? { code: state.failure.code, message: state.failure.message } : null,
  };
}
