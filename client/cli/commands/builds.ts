import { parseArgs } from 'node:util';
import { submitBuild, waitForBuild } from '../../builds/submit-build.ts';
import type { Build, BuildSubmission } from '../../types.ts';
import { unwrap } from '../../unwrap.ts';
import { bodyOfFile, lineOf, type LineField } from '../line-flags.ts';
import { clientFor, GLOBAL_OPTIONS, positiveNumber, UsageError } from '../context.ts';
import { progressReporter } from '../progress.ts';
import { explainingRefusals, type CommandHandler } from '../refusals.ts';

/**
 * `builds submit|get` (docs/client.md#cli; docs/boms.md "Builds"): a build of a BOM runs as a
 * job that reserves every component, then consumes and produces. Its body is given as flags, one
 * a body field, with `--source name=value,…` per source (as the `stock` commands take their
 * `--line`s), or whole as `--file BODY.json`; a build is printed as JSON.
 */

/** A flag of the body (not of a source): the body field it fills. */
const BODY_FLAGS = {
  'build-reference': 'buildReference',
  'bom-code': 'bomCode',
  'bom-id': 'bomId',
  quantity: 'quantity',
  'location-code': 'locationCode',
  'location-id': 'locationId',
  'output-lot': 'outputLot',
} as const;

/** A `--source` part is named as its body field. */
const SOURCE: Record<string, LineField> = {
  sku: { field: 'sku', value: 'text', required: false },
  itemId: { field: 'itemId', value: 'text', required: false },
  lot: { field: 'lot', value: 'text', required: false },
  locationCode: { field: 'locationCode', value: 'text', required: false },
};

export const BUILDS_USAGE = `builds submit --build-reference REF (--bom-code CODE | --bom-id ID) --quantity N (--location-code CODE | --location-id ID) [--output-lot LOT] [--source sku=SKU|itemId=ID[,lot=LOT][,locationCode=CODE]…] [--idempotency-key KEY] [--wait]
  builds submit --file BODY.json [--idempotency-key KEY] [--wait]
    Submits a build of a BOM's current revision: it reserves every component, then consumes and
    produces (docs/boms.md "Builds"). A component without --source is drawn at the build's
    location (a lot item: its oldest lots first); sources are drawn in the order given. A file
    holds the request body as the API takes it (then no body flag). Prints the queued build as JSON.
    --wait    follow the build until it has succeeded or failed (its steps on stderr), then print it;
              exit status 0 when it succeeded, 1 when it failed, with the failure and its short
              lines (what each needed, what was available) on stderr

  builds get ID
    Prints the build as JSON: its status, the step it runs next, and why it failed.

    A refusal (409 reference-taken with the build that took it; 400 with its pointers; 404
    not-found) is printed on stderr, exit 1.`;

/** A refusal names the build that took the reference (reference-taken). */
const explainingBuildRefusals = (handler: CommandHandler) => explainingRefusals(handler, ({ buildId }) => [buildId && `build ${buildId}`]);

/** `builds submit`. */
export const buildsSubmit = explainingBuildRefusals(async (args, context) => {
  const own = Object.fromEntries(Object.keys(BODY_FLAGS).map((flag) => [flag, { type: 'string' as const }]));
  const { values, positionals } = parseArgs({
    args,
    strict: true,
    allowPositionals: true,
    options: {
      ...GLOBAL_OPTIONS,
      ...own,
      source: { type: 'string', multiple: true },
      file: { type: 'string' },
      'idempotency-key': { type: 'string' },
      wait: { type: 'boolean', default: false },
    },
  });
  if (positionals.length > 0) throw new UsageError(`builds submit takes no positional arguments ('${positionals.join(' ')}').`);
  const given = values as Record<string, string | string[] | boolean | undefined>;
  const body = values.file === undefined ? bodyOfFlags(given) : await bodyOfFileFlag(given, values.file);
  const client = clientFor(values, context);
  // One key for the request's retries: a retried submission is answered, never queued twice.
  const queued = await submitBuild(client, body, { idempotencyKey: values['idempotency-key'], signal: context.signal });
  if (!values.wait) {
    context.stdout.write(`${JSON.stringify(queued, null, 2)}\n`);
    return 0;
  }
  const progress = progressReporter(context.stderr, context.interactive);
  let build: Build;
  try {
    // A build reports no counts, only its step: the label is the progress.
    build = await waitForBuild(client, queued.id, {
      signal: context.signal,
      onProgress: (seen) => progress.update(0, 0, `${seen.id} ${seen.status} ${seen.phase}`),
    });
  } finally {
    progress.finish();
  }
  context.stdout.write(`${JSON.stringify(build, null, 2)}\n`);
  if (build.status === 'succeeded') return 0;
  context.stderr.write(`The build failed: ${build.failure?.code}: ${build.failure?.message}\n`);
  for (const line of build.failure?.lines ?? []) context.stderr.write(`  ${JSON.stringify(line)}\n`);
  return 1;
});

/** `builds get ID` (or `--id ID`, as `reservations get` takes it). */
export const buildsGet = explainingBuildRefusals(async (args, context) => {
  const { values, positionals } = parseArgs({ args, strict: true, allowPositionals: true, options: { ...GLOBAL_OPTIONS, id: { type: 'string' } } });
  const ids = [...positionals, ...(values.id === undefined ? [] : [values.id])];
  const [id] = ids;
  if (id === undefined || ids.length > 1) throw new UsageError('builds get needs exactly one build ID.');
  const client = clientFor(values, context);
  const build = await unwrap(client.api.GET('/v1/builds/{id}', { params: { path: { id } }, signal: context.signal }));
  context.stdout.write(`${JSON.stringify(build, null, 2)}\n`);
  return 0;
});

async function bodyOfFileFlag(given: Record<string, unknown>, file: string): Promise<BuildSubmission> {
  const others = [...Object.keys(BODY_FLAGS), 'source'].filter((flag) => given[flag] !== undefined);
  if (others.length > 0)
    throw new UsageError(`builds submit takes either --file or the body's flags, not both (${others.map((flag) => `--${flag}`).join(', ')}).`);
  return bodyOfFile<BuildSubmission>(file);
}

function bodyOfFlags(given: Record<string, unknown>): BuildSubmission {
  const text = (flag: keyof typeof BODY_FLAGS) => given[flag] as string | undefined;
  const reference = text('build-reference');
  const quantity = text('quantity');
  if (reference === undefined) throw new UsageError('builds submit needs --build-reference (or --file).');
  if (quantity === undefined) throw new UsageError('builds submit needs --quantity (or --file).');
  for (const [first, second] of [
    ['bom-code', 'bom-id'],
    ['location-code', 'location-id'],
  ] as const) {
    if ((text(first) === undefined) === (text(second) === undefined)) throw new UsageError(`builds submit needs exactly one of --${first} and --${second}.`);
  }
  const body: Record<string, unknown> = {};
  for (const [flag, field] of Object.entries(BODY_FLAGS)) if (given[flag] !== undefined) body[field] = given[flag];
  body.quantity = positiveNumber('--quantity', quantity);
  const sources = (given.source as string[] | undefined) ?? [];
  if (sources.length > 0) body.sources = sources.map(sourceOf);
  // The server checks the values themselves (the BOM, the location, the lots, the number of sources).
  return body as BuildSubmission;
}

function sourceOf(flag: string): Record<string, unknown> {
  const source = lineOf(flag, SOURCE, '--source');
  if ((source.sku === undefined) === (source.itemId === undefined)) throw new UsageError(`--source ${flag}: exactly one of sku and itemId.`);
  return source;
}
