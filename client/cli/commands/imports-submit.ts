import { parseArgs } from 'node:util';
import { rowErrorsOf } from '../../imports/row-errors.ts';
import { submitImport } from '../../imports/submit-import.ts';
import { waitForImport } from '../../imports/wait-for-import.ts';
import { fileFromPath } from '../../node.ts';
import type { DuplicateStrategy, ImportJob } from '../../types.ts';
import { clientFor, GLOBAL_OPTIONS, positiveInteger, UsageError, type CliContext } from '../context.ts';
import { progressReporter } from '../progress.ts';

export const IMPORTS_SUBMIT_USAGE = `imports submit FILE --kind KIND [--duplicate-strategy skip|update|fail] [--dry-run] [--idempotency-key KEY] [--wait] [--show-errors N]
    Submits a CSV file as an import job and prints the job as JSON.
    --dry-run        decide every row as a real run would, and write nothing but the job (its counts and row errors)
    --wait           follow the job until it has finished (progress on stderr), then print it and its first row errors;
                     exit status 0 when it succeeded, 1 when some rows or the whole file failed`;

const STRATEGIES: readonly DuplicateStrategy[] = ['skip', 'update', 'fail'];

/** `imports submit FILE --kind KIND [--wait]` (docs/client.md#cli). */
export async function importsSubmit(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      ...GLOBAL_OPTIONS,
      kind: { type: 'string' },
      'duplicate-strategy': { type: 'string', default: 'skip' },
      'dry-run': { type: 'boolean', default: false },
      'idempotency-key': { type: 'string' },
      wait: { type: 'boolean', default: false },
      'show-errors': { type: 'string', default: '20' },
    },
  });
  const [path, ...extra] = positionals;
  if (path === undefined || extra.length > 0) throw new UsageError('Give exactly one FILE to import.');
  if (values.kind === undefined) throw new UsageError('--kind is required (e.g. items, locations, boms, stock-adjustments, po-receipts).');
  const strategy = values['duplicate-strategy'] as DuplicateStrategy;
  if (!STRATEGIES.includes(strategy)) throw new UsageError(`--duplicate-strategy must be one of ${STRATEGIES.join(', ')}.`);
  const showErrors = positiveInteger('--show-errors', values['show-errors']);
  const client = clientFor(values, context);

  const queued = await submitImport(client, {
    kind: values.kind,
    file: await fileFromPath(path),
    duplicateStrategy: strategy,
    dryRun: values['dry-run'],
    idempotencyKey: values['idempotency-key'],
    signal: context.signal,
  });
  if (!values.wait) {
    context.stdout.write(`${JSON.stringify(queued, null, 2)}\n`);
    return 0;
  }

  const progress = progressReporter(context.stderr, context.interactive);
  let job: ImportJob;
  try {
    job = await waitForImport(client, queued.id, {
      signal: context.signal,
      onProgress: (report) => progress.update(report.processedRows, report.totalRows, `${report.job.id} ${report.job.status}`),
    });
  } finally {
    progress.finish();
  }
  context.stdout.write(`${JSON.stringify(job, null, 2)}\n`);
  if (job.status === 'failed') context.stderr.write(`The file failed: ${job.failure?.code}: ${job.failure?.message}\n`);
  if (job.status === 'completed_with_errors')
    await printRowErrors(rowErrorsOf(client, job.id, { signal: context.signal }), job.counts.failed, showErrors, context);
  return job.status === 'succeeded' ? 0 : 1;
}

async function printRowErrors(
  errors: AsyncIterable<{ rowNumber: number; column: string | null; code: string; message: string }>,
  failedRows: number,
  limit: number,
  context: CliContext,
) {
  context.stderr.write(`${failedRows} row${failedRows === 1 ? '' : 's'} failed:\n`);
  let shown = 0;
  for await (const error of errors) {
    if (shown === limit) {
      context.stderr.write('  … (more: raise --show-errors)\n');
      return;
    }
    context.stderr.write(`  row ${error.rowNumber}${error.column ? `, ${error.column}` : ''}: ${error.code}: ${error.message}\n`);
    shown += 1;
  }
}
