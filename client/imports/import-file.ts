import type { InventoryClient } from '../create-client.ts';
import type { ImportJob, ImportRowError } from '../types.ts';
import { rowErrorsOf } from './row-errors.ts';
import { submitImport, type ImportSubmission } from './submit-import.ts';
import { waitForImport, type WaitOptions } from './wait-for-import.ts';

export interface ImportResult {
  /** The finished job: `succeeded`, `completed_with_errors` or `failed`. */
  job: ImportJob;
  /** Its row errors in row order (none for a succeeded job), fetched page by page as iterated. */
  rowErrors: AsyncIterable<ImportRowError>;
}

/** Submits a file, waits for the job to finish while reporting progress, and hands back its row errors. */
export async function importFile(client: InventoryClient, submission: ImportSubmission & WaitOptions): Promise<ImportResult> {
  const queued = await submitImport(client, submission);
  const job = await waitForImport(client, queued.id, submission);
  return { job, rowErrors: rowErrorsOf(client, job.id, { signal: submission.signal }) };
}
