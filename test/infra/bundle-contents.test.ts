import { build, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/api-function.ts';
import { lambdaEsbuildOptions, READ_FUNCTION_BUDGET_BYTES, READ_FUNCTION_BUDGET_EXEMPT } from '../../infra/bundling.ts';
import { ROUTES, type ResourceAccess } from '../../lib/routes.ts';
import { WORKERS } from '../../lib/workers.ts';

/**
 * What a read function carries, built exactly as the stack bundles it (infra/bundling.ts): its own
 * route's request schemas and the DynamoDB client, never the multipart parser, S3 or SQS (they
 * belong to the functions that upload and enqueue), response schemas (never checked at run time),
 * the default credential chain, nor zod's translated error messages (only an
 * `import { z } from 'zod'` namespace object pulls them in; use `import * as z from 'zod'`).
 * docs/operations.md#bundles has the budget and the reasons.
 */

const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  ['@fastify/busboy', /node_modules\/@fastify\/busboy\//],
  ['@aws-sdk/client-s3', /node_modules\/@aws-sdk\/client-s3\//],
  ['@aws-sdk/client-sqs', /node_modules\/@aws-sdk\/client-sqs\//],
  ['zod locales other than en', /node_modules\/zod\/.*\/locales\/(?!en\.)[^/]+$/],
];

/**
 * The default credential chain and the STS/SSO clients it calls: the Lambda bundling aliases the
 * chain to the environment provider (infra/bundling.ts, docs/operations.md#bundles), so neither
 * may reach any function's bundle.
 */
const DEFAULT_CREDENTIAL_CHAIN = /node_modules\/@aws-sdk\/(credential-provider-node|nested-clients)\//;

interface Bundle {
  /** Files that put code into the bundle; `metafile.inputs` also lists files tree-shaking emptied. */
  inputs: string[];
  /** Bytes of the minified code file (the source map is separate). */
  codeBytes: number;
}

async function bundle(entry: string): Promise<Bundle> {
  const result = await build({ ...lambdaEsbuildOptions(join(REPO_ROOT, entry)), absWorkingDir: REPO_ROOT, logLevel: 'error' });
  const metafile: Metafile = result.metafile;
  const code = result.outputFiles.find((file) => file.path.endsWith('.mjs') || file.path.endsWith('.js'));
  if (!code) throw new Error(`${entry}: esbuild produced no code file`);
  const inputs = Object.values(metafile.outputs).flatMap((output) =>
    Object.entries(output.inputs)
      .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
      .map(([input]) => input),
  );
  return { inputs, codeBytes: code.contents.byteLength };
}

async function bundleInputs(entry: string): Promise<string[]> {
  return (await bundle(entry)).inputs;
}

function listEventsHandler(): string {
  const route = ROUTES.find((candidate) => candidate.operationId === 'listEvents');
  if (!route) throw new Error('listEvents is not in lib/routes.ts');
  return route.handler;
}

describe('the GET /v1/events bundle', () => {
  let inputs: string[] = [];

  beforeAll(async () => {
    inputs = await bundleInputs(listEventsHandler());
  }, 60_000);

  it('is built from functions/http/events/list-events.ts', () => {
    expect(listEventsHandler()).toBe('functions/http/events/list-events.ts');
    expect(inputs).toContain('functions/http/events/list-events.ts');
  });

  it.each(FORBIDDEN)('does not contain %s', (_name, pattern) => {
    expect(inputs.filter((input) => pattern.test(input))).toEqual([]);
  });

  it('carries no other route’s contract and no response schema (the event catalog included)', () => {
    const contracts = inputs.filter((input) => input.startsWith('lib/contracts/'));
    expect(contracts.filter((input) => /imports|labels|audit|events\.ts|responses\.ts|operations\.ts|openapi\.ts/.test(input))).toEqual([]);
  });
});

// GET /v1/barcodes is exempt from the budget; READ_FUNCTION_BUDGET_EXEMPT says why.
const readRoutes = ROUTES.filter((route) => route.method === 'GET');
const functionEntries = [...ROUTES.map((route) => route.handler), ...WORKERS.map((worker) => worker.handler)];

describe('every function bundle', () => {
  const bundles = new Map<string, Bundle>();

  beforeAll(async () => {
    // One at a time: the machine is shared, and esbuild already uses every core for one build.
    for (const entry of functionEntries) bundles.set(entry, await bundle(entry));
  }, 120_000);

  const bundleOf = (entry: string): Bundle => {
    const built = bundles.get(entry);
    if (!built) throw new Error(`${entry} was not built`);
    return built;
  };

  // Each function carries the heavy clients it calls and no other: S3 only where bodies are
  // stored, signed, deleted or swept; the content sniffer only where files are uploaded.
  const usesS3 = (access: ResourceAccess) => access.attachmentObjects !== undefined || access.bucket !== undefined;
  const S3_FUNCTIONS = new Set([...ROUTES.filter((route) => usesS3(route.access)), ...WORKERS.filter((worker) => usesS3(worker.access))].map((fn) => fn.handler));
  it.each(functionEntries)('%s carries the S3 client and file-type only if it uses them', (entry) => {
    const inputs = bundleOf(entry).inputs;
    expect(inputs.some((input) => input.includes('@aws-sdk/client-s3/')), 'client-s3').toBe(S3_FUNCTIONS.has(entry));
    expect(inputs.some((input) => input.includes('node_modules/file-type/')), 'file-type').toBe(entry === 'functions/http/attachments/upload-attachment.ts');
  });

  it.each(functionEntries)('%s carries no default credential chain', (entry) => {
    expect(bundleOf(entry).inputs.filter((input) => DEFAULT_CREDENTIAL_CHAIN.test(input))).toEqual([]);
  });

  it.each(readRoutes.filter((route) => !READ_FUNCTION_BUDGET_EXEMPT.has(route.operationId)).map((route) => [`${route.method} ${route.path}`, route.handler]))(
    `%s is at most ${READ_FUNCTION_BUDGET_BYTES / 1000} KB minified`,
    (_route, entry) => {
      expect(bundleOf(entry).codeBytes).toBeLessThanOrEqual(READ_FUNCTION_BUDGET_BYTES);
    },
  );
});
