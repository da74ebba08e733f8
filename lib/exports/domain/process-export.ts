import { commitStep } from '../../platform/jobs/checkpoint.ts';
import { handOff, handoffsWithoutProgress } from '../../platform/jobs/hand-off.ts';
import { TimeBudget } from '../../platform/jobs/time-budget.ts';
import type { AuditActor } from '../../platform/audit/types.ts';
import type { StoredEvent } from '../../events/index.ts';
import type { CommandWriter } from '../../platform/write/ports.ts';
import { encodeRows, fileHeader } from './format.ts';
import {
  EXPORT_CONTENT_TYPES,
  MAX_EXPORT_ROWS,
  exportExpiresAt,
  isExportFinished,
  type ExportFailure,
  type ExportJobState,
  type ExportProgress,
} from './job.ts';
import { exportKind, type ExportColumn } from './kinds.ts';
import { ExportSourceUnavailable, type ExportSource } from './sources.ts';

/**
 * The export worker's run of one job (docs/architecture.md "Exports"). Start: the committed event
 * sequence S (what the file reflects) and a multipart upload, recorded with `processing`. Then,
 * part after part: rows are paged from the checkpointed source position into a buffer of at
 * least `partBytes` (S3's minimum part is 5 MiB, except the last), the buffer is uploaded as the
 * next part, and the part's ETag and the new position commit as the checkpoint (conditioned on the
 * part count read: `commitStep`). A crash between the upload and the commit re-uploads the same
 * part number, which replaces it: no row is missing or written twice. Memory holds one part and
 * one page. Last: the upload is completed and the job's final state, its `export.completed`
 * event and audit entry commit in one transaction.
 */

export const EXPORT_PART_BYTES = 8 * 1024 * 1024;
/** S3's smallest part but the last: a part cut short by the time budget is uploaded only from this size on. */
export const EXPORT_MIN_PART_BYTES = 5 * 1024 * 1024;
export const EXPORT_PAGE_SIZE = 500;

/**
 * Exports of one organization that run at once (docs/exports.md "Fairness"): the worker has few
 * slots for every tenant, so one organization's many exports must not hold them all. The others
 * stay queued and are looked at again every EXPORT_WAIT_SECONDS; none is refused or lost.
 */
export const MAX_RUNNING_EXPORTS_PER_ORGANIZATION = 2;
export const EXPORT_WAIT_SECONDS = 30;

export const EXPORT_ACTOR: AuditActor = { type: 'system', id: 'export-worker' };

export type ExportOutcome = 'finished' | 'continued' | 'waiting' | 'superseded' | 'missing';

/** The organization's running-export slots (lib/exports/store/export-slots.ts). */
export interface ExportSlots<Write> {
  /** Takes a slot for the job when fewer than `cap` are held (or it already holds one). */
  acquire(organizationId: string, jobId: string, cap: number): Promise<boolean>;
  /** Gives the job's slot back, in the transaction that finishes it. */
  releaseWrite(organizationId: string, jobId: string): Write;
}

export interface ExportJobMessage {
  organizationId: string;
  jobId: string;
  handoffsWithoutProgress: number;
}

export interface ExportProcessPorts<Write> {
  jobs: {
    get(organizationId: string, jobId: string): Promise<ExportJobState | undefined>;
    start(job: ExportJobState, progress: ExportProgress, asOfEventId: string | null, now: string): Promise<{ job: ExportJobState; won: boolean }>;
    checkpointWrite(job: ExportJobState, partsBefore: number, progress: ExportProgress, rowCount: number): Write;
    finishWrite(
      job: ExportJobState,
      outcome:
        | {
            status: 'succeeded';
            completion: { rowCount: number; fileSizeBytes: number; sha256: string; asOfEventId: string | null; completedAt: string; expiresAt: string };
          }
        | { status: 'failed'; failure: ExportFailure; completedAt: string },
    ): Write;
  };
  files: {
    createUpload(key: string, contentType: string): Promise<string>;
    uploadPart(key: string, uploadId: string, partNumber: number, body: Buffer): Promise<string>;
    completeUpload(key: string, uploadId: string, parts: ExportProgress['parts']): Promise<void>;
    abortUpload(key: string, uploadId: string): Promise<void>;
    digest(key: string): Promise<{ sizeBytes: number; sha256: string }>;
  };
  sources: { open(job: ExportJobState, asOfSequence: number): Promise<ExportSource> };
  events: { lastSequence(organizationId: string): Promise<number>; find(organizationId: string, sequence: number): Promise<StoredEvent | undefined> };
  writer: CommandWriter<Write>;
  slots: ExportSlots<Write>;
  continueLater(message: ExportJobMessage): Promise<void>;
  /** Sends the message again after `delaySeconds`: a queued export waiting for a slot. */
  retryLater(message: ExportJobMessage, delaySeconds: number): Promise<void>;
  partBytes?: number;
  minPartBytes?: number;
  pageSize?: number;
  maxRows?: number;
  clock?: () => Date;
}

const TOO_MANY_ROWS: ExportFailure = {
  code: 'too-many-rows',
  message: `The export has more than ${MAX_EXPORT_ROWS.toLocaleString('en-US')} rows; narrow it with filters.`,
};
const NO_PROGRESS: ExportFailure = { code: 'processing-error', message: 'The export made no progress in several attempts and was stopped. Submit it again.' };

export class ExportProcessor<Write> {
  constructor(private readonly ports: ExportProcessPorts<Write>) {}

  private now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }

  async process(organizationId: string, jobId: string, remainingMs: () => number, handoffs = 0): Promise<ExportOutcome> {
    const budget = new TimeBudget(remainingMs);
    let job = await this.ports.jobs.get(organizationId, jobId);
    if (!job) return 'missing';
    if (isExportFinished(job.status)) return 'finished';
    const declaration = exportKind(job.kind);
    if (!declaration) return this.fail(job, { code: 'unknown-kind', message: `There is no export kind '${job.kind}'.` });
    if (job.status === 'queued' || !job.progress) {
      if (!(await this.ports.slots.acquire(organizationId, jobId, MAX_RUNNING_EXPORTS_PER_ORGANIZATION))) {
        // Waiting for a slot is not a hand-off without progress: the count travels unchanged.
        await this.ports.retryLater({ organizationId, jobId, handoffsWithoutProgress: handoffs }, EXPORT_WAIT_SECONDS);
        return 'waiting';
      }
      job = await this.start(job);
      // Another delivery or the sweeper ended it between the read and the start.
      if (isExportFinished(job.status)) return 'finished';
    }

    let source: ExportSource;
    try {
      source = await this.ports.sources.open(job, job.progress!.asOfSequence);
    } catch (error) {
      if (error instanceof ExportSourceUnavailable) return this.fail(job, { code: error.code, message: error.message });
      throw error;
    }
    const columns: readonly ExportColumn[] = [...(source.leadingColumns ?? []), ...declaration.columns];
    let progressed = false;
    while (!job.progress!.sourceDone) {
      if (!budget.hasTime()) {
        const count = handoffsWithoutProgress({ previous: handoffs, progressed, fairRun: budget.fairRun });
        const handed = await handOff(
          { continueLater: (n) => this.ports.continueLater({ organizationId, jobId, handoffsWithoutProgress: n }), giveUp: () => this.fail(job!, NO_PROGRESS) },
          count,
        );
        return handed === 'continued' ? 'continued' : 'finished';
      }
      const next = await this.writePart(job, source, columns, budget);
      if (next === 'too-many-rows') return this.fail(job, TOO_MANY_ROWS);
      if (next === 'superseded') return 'superseded';
      // The budget ran out before the part reached S3's minimum: its rows are read again next time.
      if (next === 'out-of-time') continue;
      job = next;
      progressed = true;
    }
    return this.complete(job);
  }

  /** queued → processing: S, its event id and the upload; a simultaneous delivery that started first wins. */
  private async start(job: ExportJobState): Promise<ExportJobState> {
    const asOfSequence = await this.ports.events.lastSequence(job.organizationId);
    const asOfEventId = asOfSequence === 0 ? null : ((await this.ports.events.find(job.organizationId, asOfSequence))?.envelope.id ?? null);
    const uploadId = await this.ports.files.createUpload(job.objectKey, EXPORT_CONTENT_TYPES[job.format]);
    const started = await this.ports.jobs.start(job, { uploadId, asOfSequence, parts: [], sourceDone: false, bytes: 0 }, asOfEventId, this.now());
    if (!started.won) await this.ports.files.abortUpload(job.objectKey, uploadId);
    return started.job;
  }

  /**
   * Pages rows from the checkpoint into one part, uploads it and commits the checkpoint with it.
   * The budget is looked at before every page: when it runs out, a part of at least S3's minimum
   * is uploaded and committed as it is (the next invocation continues from it); a smaller one is
   * dropped (`out-of-time`), as S3 accepts a smaller part only last.
   */
  private async writePart(
    job: ExportJobState,
    source: ExportSource,
    columns: readonly ExportColumn[],
    budget: TimeBudget,
  ): Promise<ExportJobState | 'superseded' | 'too-many-rows' | 'out-of-time'> {
    const progress = job.progress!;
    const partBytes = this.ports.partBytes ?? EXPORT_PART_BYTES;
    const minPartBytes = Math.min(partBytes, this.ports.minPartBytes ?? EXPORT_MIN_PART_BYTES);
    const maxRows = this.ports.maxRows ?? MAX_EXPORT_ROWS;
    const chunks: Buffer[] = [];
    let size = 0;
    const append = (text: string) => {
      if (text.length === 0) return;
      const bytes = Buffer.from(text, 'utf8');
      chunks.push(bytes);
      size += bytes.length;
    };
    if (progress.parts.length === 0) append(fileHeader(job.format, columns));
    let position = progress.position;
    let rowCount = job.rowCount;
    let more = true;
    let pages = 0;
    while (more && size < partBytes) {
      // The part's first page runs on the look process() took before it.
      if (pages > 0 && !budget.hasTime()) {
        if (size < minPartBytes) return 'out-of-time';
        break;
      }
      pages += 1;
      const page = await source.page(position, this.ports.pageSize ?? EXPORT_PAGE_SIZE);
      rowCount += page.rows.length;
      if (rowCount > maxRows) return 'too-many-rows';
      append(encodeRows(job.format, columns, page.rows));
      if (page.last !== undefined) position = page.last;
      more = page.more;
    }
    const partNumber = progress.parts.length + 1;
    const etag = await this.ports.files.uploadPart(job.objectKey, progress.uploadId, partNumber, Buffer.concat(chunks, size));
    const next: ExportProgress = {
      ...progress,
      parts: [...progress.parts, { partNumber, etag }],
      ...(position === undefined ? {} : { position }),
      sourceDone: !more,
      bytes: progress.bytes + size,
    };
    const committed = await commitStep(this.ports.writer, { organizationId: job.organizationId, actor: EXPORT_ACTOR, traceId: null }, () => ({
      checkpoint: this.ports.jobs.checkpointWrite(job, progress.parts.length, next, rowCount),
      writes: [],
      events: [],
    }));
    if (committed === 'already-committed') return 'superseded';
    return { ...job, progress: next, rowCount };
  }

  /** Completes the upload, then the final state + `export.completed` + audit entry in one transaction. */
  private async complete(job: ExportJobState): Promise<ExportOutcome> {
    const progress = job.progress!;
    await this.ports.files.completeUpload(job.objectKey, progress.uploadId, progress.parts);
    const { sizeBytes, sha256 } = await this.ports.files.digest(job.objectKey);
    const completedAt = this.now();
    const expiresAt = exportExpiresAt(completedAt);
    await commitStep(this.ports.writer, { organizationId: job.organizationId, actor: EXPORT_ACTOR, traceId: null }, () => ({
      checkpoint: this.ports.jobs.finishWrite(job, {
        status: 'succeeded',
        completion: { rowCount: job.rowCount, fileSizeBytes: sizeBytes, sha256, asOfEventId: job.asOfEventId, completedAt, expiresAt },
      }),
      writes: [this.ports.slots.releaseWrite(job.organizationId, job.id)],
      events: [
        {
          type: 'export.completed',
          data: { exportId: job.id, kind: job.kind, rowCount: job.rowCount, downloadUrl: `/v1/exports/${job.id}/download-url`, expiresAt },
        },
      ],
      audit: {
        kind: 'export.completed',
        target: { kind: 'export', id: job.id },
        summary: `Export ${job.id} of ${job.kind} succeeded: ${job.rowCount} rows`,
        changes: [{ field: 'status', from: job.status, to: 'succeeded' }],
      },
    }));
    return 'finished';
  }

  /** Ends the job as failed with its audit entry, once; its upload is aborted. */
  async fail(job: ExportJobState, failure: ExportFailure): Promise<ExportOutcome> {
    await failExport(this.ports, job, failure, this.now());
    return 'finished';
  }
}

/** The failed state and its `export.failed` audit entry in one transaction, once (the worker and the sweeper); then the upload is dropped. */
export async function failExport<Write>(
  ports: {
    jobs: Pick<ExportProcessPorts<Write>['jobs'], 'finishWrite'>;
    files: Pick<ExportProcessPorts<Write>['files'], 'abortUpload'>;
    slots: Pick<ExportSlots<Write>, 'releaseWrite'>;
    writer: CommandWriter<Write>;
  },
  job: ExportJobState,
  failure: ExportFailure,
  completedAt: string,
): Promise<void> {
  await commitStep(ports.writer, { organizationId: job.organizationId, actor: EXPORT_ACTOR, traceId: null }, () => ({
    checkpoint: ports.jobs.finishWrite(job, { status: 'failed', failure, completedAt }),
    writes: [ports.slots.releaseWrite(job.organizationId, job.id)],
    events: [],
    audit: {
      kind: 'export.failed',
      target: { kind: 'export', id: job.id },
      summary: `Export ${job.id} of ${job.kind} failed: ${failure.code}`,
      changes: [{ field: 'status', from: job.status, to: 'failed' }],
    },
  }));
  if (job.progress) await ports.files.abortUpload(job.objectKey, job.progress.uploadId);
}
