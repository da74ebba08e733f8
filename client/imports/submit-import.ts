import type { InventoryClient } from '../create-client.ts';
import { formBody } from '../http/form-body.ts';
import type { DuplicateStrategy, ImportJob } from '../types.ts';
import { unwrap } from '../unwrap.ts';

export interface ImportSubmission {
  /** An import kind (`items`, `locations`, `boms`, `stock-adjustments`, `po-receipts`, …). */
  kind: string;
  /** The CSV file; a File keeps its name, a plain Blob is named by `fileName`. */
  file: Blob;
  fileName?: string;
  /** What a row does when its record exists: `skip` unless told (it never overwrites). */
  duplicateStrategy?: DuplicateStrategy;
  /** Decide every row as a real run would and write nothing but the job (docs/imports.md "Dry runs"); default false. */
  dryRun?: boolean;
  /** A key of your own, e.g. to make a resubmission after a crash replay the first job. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

/** POST /v1/imports/jobs: the queued job (docs/imports.md). */
export async function submitImport(client: InventoryClient, submission: ImportSubmission): Promise<ImportJob> {
  const file =
    submission.fileName !== undefined || !(submission.file instanceof File)
      ? new File([submission.file], submission.fileName ?? 'import.csv', { type: 'text/csv' })
      : submission.file;
  return unwrap(
    client.api.POST('/v1/imports/jobs', {
      // Sent only when asked: a form without it is a real run, as before.
      body: {
        kind: submission.kind,
        duplicateStrategy: submission.duplicateStrategy ?? 'skip',
        ...(submission.dryRun === undefined ? {} : { dryRun: submission.dryRun ? ('true' as const) : ('false' as const) }),
        file,
      },
      bodySerializer: formBody,
      params: { header: submission.idempotencyKey === undefined ? undefined : { 'Idempotency-Key': submission.idempotencyKey } },
      signal: submission.signal,
    }),
  );
}
