import type { InventoryClient } from '../create-client.ts';
import type { ImportJob, ImportJobStatus } from '../types.ts';
import { unwrap } from '../unwrap.ts';

const FINISHED: ReadonlySet<ImportJobStatus> = new Set(['succeeded', 'completed_with_errors', 'failed']);

export const isFinished = (job: ImportJob): boolean => FINISHED.has(job.status);

export interface ImportProgress {
  job: ImportJob;
  processedRows: number;
  /** 0 until the worker has counted the file's rows. */
  totalRows: number;
}

export interface WaitOptions {
  /** Called after every poll, and once more with the finished job. */
  onProgress?: (progress: ImportProgress) => void;
  /** The first pause between polls. */
  initialDelayMs?: number;
  /** The longest pause between polls. */
  maxDelayMs?: number;
  signal?: AbortSignal;
}

/**
 * Polls GET /v1/imports/jobs/{id} until the job has finished (docs/client.md#the-import-helper).
 * The pause grows by half while nothing moves and stays put while the status or the row count changes, so a
 * slow queue costs few requests and a running job reports progress often.
 */
export async function waitForImport(client: InventoryClient, jobId: string, options: WaitOptions = {}): Promise<ImportJob> {
  const initialDelayMs = options.initialDelayMs ?? 250;
  const maxDelayMs = options.maxDelayMs ?? 5000;
  let delayMs = initialDelayMs;
  let lastState = '';
  for (;;) {
    const job = await unwrap(client.api.GET('/v1/imports/jobs/{id}', { params: { path: { id: jobId } }, signal: options.signal }));
    options.onProgress?.({ job, processedRows: job.counts.processedRows, totalRows: job.counts.totalRows });
    if (isFinished(job)) return job;
    const state = `${job.status} ${job.counts.processedRows}`;
    const moved = state !== lastState;
    lastState = state;
    delayMs = moved ? delayMs : Math.min(maxDelayMs, Math.ceil(delayMs * 1.5));
    await client.sleep(delayMs, options.signal);
  }
}
