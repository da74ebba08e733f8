import type { CommandWriter } from '../../../platform/write/ports.ts';
import type { ChunkProgress, ColumnWarning, DryRunOverlayPointer, ImportJobState, JobFailure, JobStatus } from '../job.ts';
import type { AnyImportKind, ImportRecords } from '../kind-definition.ts';
import type { DryRunOverlayObjects } from './dry-run.ts';
import type { RowError } from '../types.ts';
import type { ImportBuilds } from './job-units.ts';

/**
 * What the import pipeline (docs/architecture.md "The import pipeline") needs from the world:
 * the job's record, the uploaded file, the tenant's records, the writer, and the queue that
 * takes the rest of a job. lib/store implements them; test/support/import-harness.ts fakes them.
 */

export interface ProcessPorts<Write = unknown> {
  jobs: {
    get(organizationId: string, jobId: string): Promise<ImportJobState | undefined>;
    start(job: ImportJobState, totals: { totalRows: number; warnings: ColumnWarning[] }, now: string): Promise<ImportJobState>;
    rowErrorWrite(job: Pick<ImportJobState, 'organizationId' | 'id' | 'submittedAt'>, error: RowError, index: number): Write;
    /** `dryRunOverlay`: for a dry run, the overlay objects once this chunk committed (lib/imports/domain/pipeline/dry-run.ts). */
    checkpointWrite(job: ImportJobState, from: number, to: number, progress: ChunkProgress, dryRunOverlay?: DryRunOverlayPointer): Write;
    finishWrite(job: ImportJobState, status: JobStatus, failure: JobFailure | null, now: string): Write;
  };
  /** The uploaded file, as a stream of chunks. */
  files: { open(key: string): Promise<AsyncIterable<Uint8Array>> };
  records: ImportRecords<Write>;
  /** Where dry runs keep their overlay between invocations; a dry run fails without it. */
  dryRunOverlays?: DryRunOverlayObjects;
  writer: CommandWriter<Write>;
  /** Submits and runs the builds of the `builds` kind (docs/boms.md "Builds"); without it they are decided in the chunk, as in dry runs. */
  builds?: ImportBuilds;
  /** Hands the rest of a job to a new message. */
  continueLater(message: JobHandoff): Promise<void>;
  /** Actions one chunk's rows may use: the store's transaction limit less what the writer and the checkpoint take. */
  chunkActions: number;
  /**
   * Bytes one chunk's writes and events may add up to (the store's transaction size limit less a
   * margin), measured by `writeBytes`; without them only actions are counted.
   */
  chunkBytes?: number;
  writeBytes?: (write: Write) => number;
  clock?: () => Date;
  /** Rows whose references are read at a time (default `REFERENCE_WINDOW_ROWS` of reference-windows.ts; tests set fewer). */
  referenceWindowRows?: number;
  /** The registry of kinds (default: the registered kinds of kinds.ts). */
  kinds?: (name: string) => AnyImportKind | undefined;
  /**
   * Told once per job, by the delivery whose transaction ended it, with its final state (e.g. to
   * count its rows); a delivery that finds the job already ended is not told.
   */
  onEnded?: (job: ImportJobState, status: JobStatus) => void;
}

/** A job handed to a new message, with how many invocations in a row it has made no progress in. */
export interface JobHandoff {
  organizationId: string;
  jobId: string;
  handoffsWithoutProgress?: number;
}

export type ProcessOutcome = 'finished' | 'already-finished' | 'missing' | 'continued' | 'taken-over';

/** Who the pipeline's transactions are written by (audit entries, events). */
export const SYSTEM_ACTOR = { type: 'system' as const, id: 'import-worker' };
