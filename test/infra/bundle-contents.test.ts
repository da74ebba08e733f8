import { build, type Metafile } from 'esbuild';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/api-function.ts';
import { BUNDLE_CEILINGS, lambdaEsbuildOptions, HTTP_FUNCTION_BUDGET_BYTES, WORKER_BUDGET_BYTES } from '../../infra/bundling.ts';
import { buildLambdaAsset, ON_DEMAND_MODULE_BUDGET_BYTES, ON_DEMAND_MODULES, type LambdaAsset } from '../../infra/on-demand-modules.ts';
import { BARCODE_FORMATS } from '../../lib/labels/domain/formats.ts';
import { ENCODER_MODULES } from '../../lib/labels/domain/encoder-modules.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import type { ResourceAccess } from '../../lib/platform/contracts/route-types.ts';
import { WORKERS } from '../../lib/app/workers.ts';

/**
 * What a read function carries, built exactly as the stack bundles it (infra/bundling.ts): its own
 * route's request schemas and the DynamoDB client, never the multipart parser, S3 or SQS (they
 * belong to the functions that upload and enqueue), response schemas (never checked at run time),
 * the default credential chain, nor zod's classic API or its translated error messages (contracts
 * use `zod/mini` through lib/platform/contracts/zod.ts, which sets the English messages only).
 * docs/operations.md#bundles has the budgets and the reasons.
 */

const FORBIDDEN: ReadonlyArray<readonly [string, RegExp]> = [
  ['@fastify/busboy', /node_modules\/@fastify\/busboy\//],
  ['@aws-sdk/client-s3', /node_modules\/@aws-sdk\/client-s3\//],
  ['@aws-sdk/client-sqs', /node_modules\/@aws-sdk\/client-sqs\//],
  ['zod locales other than en', /node_modules\/zod\/.*\/locales\/(?!en\.)[^/]+$/],
  ['zod classic', /node_modules\/zod\/v4\/classic\//],
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
  code: string;
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
  return { inputs, codeBytes: code.contents.byteLength, code: code.text };
}

async function bundleInputs(entry: string): Promise<string[]> {
  return (await bundle(entry)).inputs;
}

function listEventsHandler(): string {
  const route = ROUTES.find((candidate) => candidate.operationId === 'listEvents');
  if (!route) throw new Error('listEvents is not in lib/app/routes.ts');
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
    const contracts = inputs.filter((input) => /^lib\/([^/]+\/contracts(\/|\.ts)|app\/)/.test(input));
    expect(contracts.filter((input) => /imports|labels|audit|events\.ts|responses\.ts|operations\.ts|openapi[/.]/.test(input))).toEqual([]);
  });
});

// Functions over their class's budget have their own ceiling; BUNDLE_CEILINGS says why.
const budgeted = [
  ...ROUTES.map((route) => ({ id: route.operationId, label: `${route.method} ${route.path}`, entry: route.handler, classBudget: HTTP_FUNCTION_BUDGET_BYTES })),
  ...WORKERS.map((worker) => ({ id: worker.id, label: `worker ${worker.id}`, entry: worker.handler, classBudget: WORKER_BUDGET_BYTES })),
].map(({ id, label, entry, classBudget }) => {
  const budget = BUNDLE_CEILINGS[id]?.bytes ?? classBudget;
  return [`${label} is at most ${budget / 1000} KB minified`, entry, budget] as const;
});
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

  // Each function carries the heavy clients it calls and no other: the S3 client only where
  // attachment bodies are listed (the sweep); the attachment routes put, presign and delete, and
  // the import submission and worker put and read their file, with signed requests instead
  // (lib/attachments/store/attachment-objects.ts, lib/platform/aws/files-store.ts), and nothing else touches S3.
  // The SQS client only where dead letters are received (the sweep); the import queue's producers
  // send with a signed request (lib/platform/aws/job-queue.ts). The content sniffer only where files are
  // uploaded. Export files: the worker and the sweeper use the S3 client's multipart calls; the
  // download link is presigned like an attachment's.
  const handlersWhere = (uses: (access: ResourceAccess) => boolean) =>
    new Set([...ROUTES.filter((route) => uses(route.access)), ...WORKERS.filter((worker) => uses(worker.access))].map((fn) => fn.handler));
  const S3_FUNCTIONS = handlersWhere((access) => access.attachmentObjects === 'list-delete' || access.exportObjects === 'write');
  const SIGNS_S3_REQUESTS = handlersWhere((access) => access.attachmentObjects !== undefined || access.exportObjects === 'get');
  const SIGNS_FILE_REQUESTS = handlersWhere((access) => access.bucket !== undefined);
  const SQS_FUNCTIONS = handlersWhere(
    (access) => access.importDeadLetterQueue !== undefined || Object.values(access.queues ?? {}).includes('send-and-settle-dead-letters'),
  );
  it.each(functionEntries)('%s carries the S3 and SQS clients, the signed S3 requests and file-type only if it uses them', (entry) => {
    const inputs = bundleOf(entry).inputs;
    expect(
      inputs.some((input) => input.includes('@aws-sdk/client-s3/')),
      'client-s3',
    ).toBe(S3_FUNCTIONS.has(entry));
    expect(
      inputs.some((input) => input.includes('@aws-sdk/client-sqs/')),
      'client-sqs',
    ).toBe(SQS_FUNCTIONS.has(entry));
    expect(inputs.includes('lib/attachments/store/attachment-objects.ts'), 'attachment-objects').toBe(SIGNS_S3_REQUESTS.has(entry));
    expect(inputs.includes('lib/platform/aws/files-store.ts'), 'files-store').toBe(SIGNS_FILE_REQUESTS.has(entry));
    expect(
      inputs.some((input) => input.includes('node_modules/file-type/')),
      'file-type',
    ).toBe(entry === 'functions/http/attachments/upload-attachment.ts');
  });

  it.each(functionEntries)('%s carries no default credential chain and no classic zod', (entry) => {
    expect(bundleOf(entry).inputs.filter((input) => DEFAULT_CREDENTIAL_CHAIN.test(input))).toEqual([]);
    expect(bundleOf(entry).inputs.filter((input) => input.includes('node_modules/zod/v4/classic/'))).toEqual([]);
  });

  // The list functions read their cursor keys with one signed GetSecretValue (lib/platform/aws/cursor-secret.ts).
  it.each(functionEntries)('%s carries no Secrets Manager client', (entry) => {
    expect(bundleOf(entry).inputs.filter((input) => input.includes('@aws-sdk/client-secrets-manager/'))).toEqual([]);
  });

  // Each handler binds its own route (from its area's file, lib/<area>/routes.ts), so the rest of the table
  // stays out of its bundle; only the $default function needs the table.
  it.each(ROUTES.map((route) => [route.operationId, route.handler]))('%s carries no other route', (_id, entry) => {
    const others = ROUTES.filter((route) => route.handler !== entry).map((route) => route.handler);
    expect(others.filter((handler) => bundleOf(entry).code.includes(handler))).toEqual([]);
  });

  // Schemas that only a write route (or another area) uses are built in a pure IIFE in the shared
  // contract modules (lib/platform/contracts/zod.ts says why), so a read function drops them.
  it('GET /v1/boms/{id} carries neither the BOM bodies nor the unused wire primitives', () => {
    const { code } = bundleOf('functions/http/boms/get-bom.ts');
    for (const message of [
      'A BOM has at least one component.',
      'Must be an ISO 8601 date-time',
      'Must be a decimal number',
      "Must be 'true' or 'false'",
      'Must be a 32-bit signed integer.',
    ]) {
      expect(code, message).not.toContain(message);
    }
  });

  it('GET /v1/attachments carries neither the upload form nor the link body nor the import form', () => {
    const { code } = bundleOf('functions/http/attachments/list-attachments.ts');
    for (const message of ['Must be a whole number of pages', 'Must be a file part.']) expect(code, message).not.toContain(message);
  });

  it.each(budgeted)('%s', (_title, entry, budget) => {
    expect(bundleOf(entry).codeBytes).toBeLessThanOrEqual(budget);
  });

  it('keeps a ceiling only for a function over its class budget, and names a route or a worker by it', () => {
    const ids = new Set<string>([...ROUTES.map((route) => route.operationId), ...WORKERS.map((worker) => worker.id)]);
    expect(Object.keys(BUNDLE_CEILINGS).filter((id) => !ids.has(id))).toEqual([]);
    for (const [id, { bytes }] of Object.entries(BUNDLE_CEILINGS)) {
      const isWorker = WORKERS.some((worker) => worker.id === id);
      expect(bytes, id).toBeGreaterThan(isWorker ? WORKER_BUDGET_BYTES : HTTP_FUNCTION_BUDGET_BYTES);
    }
  });
});

/**
 * The barcode function carries no encoder: each format's encoder is a file of its own in the
 * asset, loaded by the first request for that format (lib/labels/domain/encoder-modules.ts,
 * infra/on-demand-modules.ts). Its entry is held to the read functions' budget by the test above;
 * each encoder file, what a request loads on top of it, to `ON_DEMAND_MODULE_BUDGET_BYTES`.
 */
describe('the GET /v1/barcodes asset', () => {
  const entry = 'functions/http/labels/render-barcode.ts';
  let asset: LambdaAsset;
  const inputsOf = (metafile: Metafile, file: string) =>
    Object.entries(metafile.outputs)
      .filter(([output]) => output.endsWith(file))
      .flatMap(([, output]) =>
        Object.entries(output.inputs)
          .filter(([, { bytesInOutput }]) => bytesInOutput > 0)
          .map(([input]) => input),
      );

  beforeAll(async () => {
    asset = await buildLambdaAsset(entry);
  }, 60_000);

  it('is the entry with on-demand modules, the barcode route’s handler', () => {
    expect(ON_DEMAND_MODULES[entry]).toBe('lib/labels/domain/encoders');
    expect(ROUTES.find((route) => route.operationId === 'renderBarcode')?.handler).toBe(entry);
  });

  it('has an entry without any of bwip-js', () => {
    const [entryBuild] = asset.metafiles;
    if (!entryBuild) throw new Error('no entry build');
    const inputs = inputsOf(entryBuild, 'index.mjs');
    expect(inputs).toContain(entry);
    expect(inputs.filter((input) => input.includes('node_modules/bwip-js/') || input.includes('lib/labels/domain/encoders/'))).toEqual([]);
  });

  it('holds one encoder file per barcode format, and no other', () => {
    const expected = BARCODE_FORMATS.map((format) => `encoders/${ENCODER_MODULES[format]}.mjs`).sort();
    expect(asset.onDemand.map((file) => file.name).sort()).toEqual(expected);
  });

  it.each(BARCODE_FORMATS)('%s: its encoder file is bwip-js and its encoder module, nothing else', (format) => {
    const [, encoderBuild] = asset.metafiles;
    if (!encoderBuild) throw new Error('no encoder build');
    const inputs = inputsOf(encoderBuild, `encoders/${ENCODER_MODULES[format]}.mjs`);
    expect(inputs).toContain(`lib/labels/domain/encoders/${ENCODER_MODULES[format]}.ts`);
    expect(
      inputs.filter((input) => !input.startsWith('node_modules/bwip-js/') && input !== `lib/labels/domain/encoders/${ENCODER_MODULES[format]}.ts`),
    ).toEqual([]);
  });

  it.each(BARCODE_FORMATS)(`%s: its encoder file is at most ${ON_DEMAND_MODULE_BUDGET_BYTES / 1000} KB minified`, (format) => {
    const file = asset.onDemand.find((candidate) => candidate.name === `encoders/${ENCODER_MODULES[format]}.mjs`);
    expect(file?.bytes).toBeLessThanOrEqual(ON_DEMAND_MODULE_BUDGET_BYTES);
  });
});
