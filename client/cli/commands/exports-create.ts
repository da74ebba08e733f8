import { parseArgs } from 'node:util';
import { exportFile } from '../../exports/export-file.ts';
import { clientFor, GLOBAL_OPTIONS, UsageError, type CliContext } from '../context.ts';
import { progressReporter } from '../progress.ts';

export const EXPORTS_CREATE_USAGE = `exports create --kind KIND --out PATH [--format csv|jsonl] [--filter NAME=VALUE]… [--idempotency-key KEY]
    Exports a kind of record to a file (progress on stderr) and prints the finished export as JSON;
    exit status 0 when it succeeded, 1 when it failed. --filter takes the kind's filters
    (GET /v1/exports/kinds); true and false are booleans.`;

/** `exports create --kind KIND --out PATH` (docs/exports.md). */
export async function exportsCreate(args: string[], context: CliContext): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      ...GLOBAL_OPTIONS,
      kind: { type: 'string' },
      out: { type: 'string' },
      format: { type: 'string', default: 'csv' },
      filter: { type: 'string', multiple: true, default: [] },
      'idempotency-key': { type: 'string' },
    },
  });
  if (positionals.length > 0) throw new UsageError('exports create takes no positional arguments.');
  if (values.kind === undefined) throw new UsageError('--kind is required (e.g. items, stock-records, movements).');
  if (values.out === undefined) throw new UsageError('--out PATH is required.');
  if (values.format !== 'csv' && values.format !== 'jsonl') throw new UsageError('--format must be csv or jsonl.');
  const filters: Record<string, string | boolean> = {};
  for (const filter of values.filter) {
    const at = filter.indexOf('=');
    if (at <= 0) throw new UsageError(`--filter takes NAME=VALUE, got '${filter}'.`);
    const value = filter.slice(at + 1);
    filters[filter.slice(0, at)] = value === 'true' ? true : value === 'false' ? false : value;
  }
  const client = clientFor(values, context);
  const progress = progressReporter(context.stderr, context.interactive);
  let result: Awaited<ReturnType<typeof exportFile>>;
  try {
    result = await exportFile(client, {
      kind: values.kind,
      format: values.format,
      filters,
      path: values.out,
      idempotencyKey: values['idempotency-key'],
      signal: context.signal,
      // The total is known only at the end: the row count grows part by part.
      onProgress: (job) => progress.update(job.rowCount, 0, `${job.id} ${job.status}`),
    });
  } finally {
    progress.finish();
  }
  context.stdout.write(`${JSON.stringify(result.job, null, 2)}\n`);
  if (result.job.status !== 'succeeded') {
    context.stderr.write(`The export failed: ${result.job.failure?.code}: ${result.job.failure?.message}\n`);
    return 1;
  }
  context.stderr.write(`Wrote ${result.bytes} bytes to ${result.path}\n`);
  return 0;
}
