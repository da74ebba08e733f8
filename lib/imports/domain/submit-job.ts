import { createHash } from 'node:crypto';
import { ApiError } from '../../platform/core/errors.ts';
import { newId } from '../../platform/core/ids.ts';
import type { CommandPlan } from '../../platform/write/ports.ts';
import { EMPTY_COUNTS, type ImportJobState } from './job.ts';
import { isImportKind } from './kind-names.ts';
import type { DuplicateStrategy } from './types.ts';

/**
 * Submitting an import job (docs/imports.md "Guarantees"): the file goes to object storage under a key derived
 * from its content (a retried upload rewrites the same object), the job and its audit entry
 * commit in one transaction, and only then is the job handed to the queue. A job whose hand-off
 * fails stays in the dispatch index, where the sweeper finds it: no job is stuck in `queued`.
 */

export interface SubmitPorts<Write = unknown> {
  files: { put(key: string, content: Buffer, contentType: string, sha256Hex: string): Promise<void> };
  jobs: { createWrite(job: ImportJobState): Write; markDispatched(organizationId: string, jobId: string): Promise<void> };
  queue: { send(message: { organizationId: string; jobId: string }): Promise<void> };
  log?: (message: string, fields: Record<string, unknown>) => void;
}

export interface SubmitRequest {
  kind: string;
  duplicateStrategy: DuplicateStrategy;
  /** Default false (docs/imports.md "Dry runs"). */
  dryRun?: boolean;
  file: { fileName: string; content: Buffer };
}

/**
 * C0 and C1 controls, DEL, and the bidirectional marks, embeddings, overrides and isolates that
 * can make an echoed name display as something else (U+202E shows "vsc.exe" as "exe.csv").
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_IN_FILE_NAMES = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** File names are echoed back in the job and the audit log; keep them printable, unambiguous and short. */
export function cleanFileName(fileName: string): string {
  const printable = fileName.replace(UNSAFE_IN_FILE_NAMES, '');
  return [...printable].slice(0, 255).join('') || 'upload.csv';
}

export class ImportJobSubmitter<Write = unknown> {
  constructor(private readonly ports: SubmitPorts<Write>) {}

  /** Stores the file and plans the job's transaction; nothing is visible until it commits. */
  async prepare(organizationId: string, request: SubmitRequest, now = new Date()): Promise<CommandPlan<ImportJobState, Write>> {
    if (!isImportKind(request.kind)) {
      throw new ApiError(404, 'customer-api.imports.unknown-kind', 'Unknown import kind', {
        detail: `There is no import kind '${request.kind}'. GET /v1/imports/kinds lists them.`,
      });
    }
    const sha256 = createHash('sha256').update(request.file.content).digest('hex');
    const fileKey = `imports/${organizationId}/${sha256}.csv`;
    await this.ports.files.put(fileKey, request.file.content, 'text/csv', sha256);
    const job: ImportJobState = {
      id: newId('imp', now.getTime()),
      kind: request.kind,
      duplicateStrategy: request.duplicateStrategy,
      dryRun: request.dryRun ?? false,
      status: 'queued',
      fileName: cleanFileName(request.file.fileName),
      fileSizeBytes: request.file.content.length,
      fileSha256: sha256,
      submittedAt: now.toISOString(),
      startedAt: null,
      completedAt: null,
      counts: { ...EMPTY_COUNTS },
      failure: null,
      warnings: [],
      organizationId,
      fileKey,
      checkpoint: 0,
      progressAt: now.toISOString(),
    };
    return {
      writes: [this.ports.jobs.createWrite(job)],
      audit: {
        kind: 'import.submitted',
        target: { kind: 'import-job', id: job.id },
        summary: `${job.dryRun ? 'Dry run of the import' : 'Import'} of ${job.fileName} (${job.kind}, ${job.duplicateStrategy}) submitted`,
        changes: [{ field: 'dryRun', from: null, to: job.dryRun }],
      },
      events: [],
      result: job,
    };
  }

  /** Hands a committed job to the queue; a failure is left to the sweeper, not to the client. */
  async dispatch(job: ImportJobState): Promise<void> {
    try {
      await this.ports.queue.send({ organizationId: job.organizationId, jobId: job.id });
      await this.ports.jobs.markDispatched(job.organizationId, job.id);
    } catch (error) {
      this.ports.log?.('import job not dispatched; the sweeper will retry', { jobId: job.id, error: (error as Error).message });
    }
  }
}
