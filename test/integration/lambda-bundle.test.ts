import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LAMBDA_ALIASES, lambdaEsbuildOptions } from '../../infra/bundling.ts';
import { buildLambdaAsset } from '../../infra/on-demand-modules.ts';
import { eventsPageSchema } from '../../lib/events/contracts/events.ts';
import { ENCODER_MODULES } from '../../lib/labels/domain/encoder-modules.ts';
import type { BarcodeFormat } from '../../lib/labels/domain/formats.ts';
import { resourcesFor, routeById } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { TABLES, type TableId } from '../../lib/platform/storage/tables.ts';
import { createTestKey, uniqueOrganization } from '../support/api.ts';
import { rasterize, scan, ZXING_FORMAT } from '../support/barcode-scanner.ts';
import { commit, eventDraft } from '../support/events.ts';
import { apiGatewayEvent } from '../../local/api-gateway-events.ts';

/**
 * The GET /v1/events function as Lambda runs it: bundled with the stack's exact esbuild options
 * (infra/bundling.ts, the credential alias included), loaded in a fresh Node process whose
 * environment holds only what Lambda and the stack give that function, and invoked with an API
 * Gateway event. The aliased credential provider (docs/operations.md#bundles) must sign real
 * DynamoDB calls from the environment alone: an unsigned or unsigned-able request never
 * reaches the 200.
 */

const route = routeById('listEvents');
const run = promisify(execFile);

/** Loads the bundle, invokes its `handler` once with the event file, writes the result file. */
const INVOKER = `
import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, eventFile, resultFile] = process.argv.slice(1);
const event = JSON.parse(readFileSync(eventFile, 'utf8'));
const deadline = Date.now() + 10_000;
const context = {
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'ListEventsFunction',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:local:000000000000:function:ListEventsFunction',
  memoryLimitInMB: '512',
  awsRequestId: event.requestContext.requestId,
  logGroupName: '/aws/lambda/ListEventsFunction',
  logStreamName: 'bundle-test',
  getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
};
const { handler } = await import(bundle);
writeFileSync(resultFile, JSON.stringify(await handler(event, context)));
`;

/**
 * What the deployed function's process sees: the variables Lambda itself sets (credentials and
 * region; no profile, no config files, no HOME), the ones ApiFunction sets (infra/api-function.ts)
 * and the table names and cursor key its route is granted (`resourcesFor`). The only local
 * addition is the DynamoDB endpoint, the SDK's standard override.
 */
function lambdaEnvironment(stackEnv: Readonly<Record<string, string | undefined>>, invoked: RouteDefinition = route): Record<string, string> {
  const required = (name: string) => {
    const value = stackEnv[name];
    if (!value) throw new Error(`The local stack did not provide ${name}`);
    return value;
  };
  const env: Record<string, string> = {
    AWS_REGION: required('AWS_REGION'),
    AWS_DEFAULT_REGION: required('AWS_REGION'),
    AWS_ACCESS_KEY_ID: required('AWS_ACCESS_KEY_ID'),
    AWS_SECRET_ACCESS_KEY: required('AWS_SECRET_ACCESS_KEY'),
    AWS_SESSION_TOKEN: 'local-session-token',
    AWS_LAMBDA_FUNCTION_NAME: 'ListEventsFunction',
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs22.x',
    AWS_ENDPOINT_URL_DYNAMODB: required('AWS_ENDPOINT_URL_DYNAMODB'),
    NODE_OPTIONS: '--enable-source-maps',
    STAGE: 'test',
    RATE_LIMIT_GENERAL_PER_MINUTE: '1200',
    RATE_LIMIT_SUBMISSION_PER_MINUTE: '20',
  };
  const access = resourcesFor(invoked);
  for (const [id, level] of Object.entries(access.tables) as [TableId, string | undefined][]) {
    if (level) env[TABLES[id].envVar] = required(TABLES[id].envVar);
  }
  if (access.cursorSecret) env.CURSOR_SECRET = randomBytes(32).toString('base64url');
  return env;
}

describe('the GET /v1/events Lambda bundle', () => {
  let dir = '';
  let bundle = '';
  let bundledInputs: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'list-events-bundle-'));
    const result = await build(lambdaEsbuildOptions(route.handler));
    bundledInputs = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    for (const file of result.outputFiles) writeFileSync(join(dir, basename(file.path)), file.contents);
    bundle = join(dir, 'index.mjs');
  }, 60_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('is built with the credential alias in place of the default chain, and the event-stream stub', () => {
    expect(bundledInputs).toContain(LAMBDA_ALIASES['@aws-sdk/credential-provider-node'].replace(/^\.\//, ''));
    expect(bundledInputs.filter((input) => /node_modules\/@aws-sdk\/(credential-provider-node|nested-clients)\//.test(input))).toEqual([]);
    expect(bundledInputs).toContain(LAMBDA_ALIASES['@smithy/core/event-streams'].replace(/^\.\//, ''));
    expect(bundledInputs.filter((input) => input.includes('@smithy/core/dist-es/submodules/event-streams/'))).toEqual([]);
  });

  it('answers 200 with a page of the organization’s events, with nothing but the Lambda environment', { timeout: 60_000 }, async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    await commit(organizationId, [eventDraft('item.created'), eventDraft('stock.changed')]);
    const { key } = await createTestKey({ organizationId, scopes: ['events:read'] });
    const eventFile = join(dir, 'event.json');
    const resultFile = join(dir, 'result.json');
    writeFileSync(eventFile, JSON.stringify(apiGatewayEvent(route, { query: 'limit=10', key })));
    // Act
    await run(process.execPath, ['--input-type=module', '-e', INVOKER, pathToFileURL(bundle).href, eventFile, resultFile], {
      env: lambdaEnvironment(process.env),
      cwd: dir,
      timeout: 30_000,
    });
    // Assess
    const response = JSON.parse(readFileSync(resultFile, 'utf8')) as { statusCode: number; headers: Record<string, string>; body: string };
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['Content-Type']).toMatch(/^application\/json/);
    const body: unknown = JSON.parse(response.body);
    expect(eventsPageSchema.safeParse(body).error).toBeUndefined();
    const page = eventsPageSchema.parse(body);
    expect(page.data.map((event) => event.type)).toEqual(['item.created', 'stock.changed']);
    expect(typeof page.page.nextCursor).toBe('string');
  });
});

/**
 * The S3 client under the same aliases: `@smithy/core/event-streams` is a stub in Lambda bundles
 * (infra/bundling.ts), and the S3 client wires an event-stream marshaller at construction. Every
 * S3 call the service makes (put, presigned get, list, delete) goes through the real store
 * against the local S3, from a fresh process with only Lambda-like variables.
 */
describe('a Lambda bundle calling S3', () => {
  let dir = '';
  let bundle = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 's3-bundle-'));
    const result = await build(lambdaEsbuildOptions('test/support/s3-bundle-probe.ts'));
    const inputs = Object.values(result.metafile.outputs).flatMap((output) => Object.keys(output.inputs));
    expect(inputs).toContain(LAMBDA_ALIASES['@smithy/core/event-streams'].replace(/^\.\//, ''));
    for (const file of result.outputFiles) writeFileSync(join(dir, basename(file.path)), file.contents);
    bundle = join(dir, 'index.mjs');
  }, 60_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('puts, signs a download URL for, lists and deletes an object', { timeout: 60_000 }, async () => {
    // Prepare
    const required = (name: string) => {
      const value = process.env[name];
      if (!value) throw new Error(`The local stack did not provide ${name}`);
      return value;
    };
    const resultFile = join(dir, 'result.json');
    const invoker = `
import { writeFileSync } from 'node:fs';
const [bundle, resultFile] = process.argv.slice(1);
const { handler } = await import(bundle);
writeFileSync(resultFile, JSON.stringify(await handler()));
`;
    // Act
    await run(process.execPath, ['--input-type=module', '-e', invoker, pathToFileURL(bundle).href, resultFile], {
      env: {
        AWS_REGION: required('AWS_REGION'),
        AWS_ACCESS_KEY_ID: required('AWS_ACCESS_KEY_ID'),
        AWS_SECRET_ACCESS_KEY: required('AWS_SECRET_ACCESS_KEY'),
        AWS_ENDPOINT_URL_S3: required('AWS_ENDPOINT_URL_S3'),
        S3_FORCE_PATH_STYLE: required('S3_FORCE_PATH_STYLE'),
        FILES_BUCKET_NAME: required('FILES_BUCKET_NAME'),
        NODE_OPTIONS: '--enable-source-maps',
      },
      cwd: dir,
      timeout: 30_000,
    });
    // Assess
    expect(JSON.parse(readFileSync(resultFile, 'utf8'))).toEqual({ body: 'bundled S3 client', listed: true, deleted: true });
  });
});

/** Loads the bundle and invokes its `handler` with each event of the events file in turn (one warm container). */
const SEQUENCE_INVOKER = `
import { readFileSync, writeFileSync } from 'node:fs';
const [bundle, eventsFile, resultFile] = process.argv.slice(1);
const events = JSON.parse(readFileSync(eventsFile, 'utf8'));
const context = (event) => ({
  callbackWaitsForEmptyEventLoop: false,
  functionName: 'RenderBarcodeFunction',
  awsRequestId: event.requestContext.requestId,
  getRemainingTimeInMillis: () => 10_000,
});
const { handler } = await import(bundle);
const results = [];
for (const event of events) results.push(await handler(event, context(event)));
writeFileSync(resultFile, JSON.stringify(results));
`;

interface BarcodeResponse {
  statusCode: number;
  headers: Record<string, string>;
  body?: string;
  isBase64Encoded?: boolean;
}

/**
 * The GET /v1/barcodes asset as the stack deploys it (infra/on-demand-modules.ts): an entry
 * without bwip-js and one encoder file per format, which the entry loads when a request first
 * needs it. Invoked in a fresh Node process with the Lambda environment, its images must scan
 * back to their payloads; a 304 must need no encoder file at all.
 */
describe('the GET /v1/barcodes Lambda asset', () => {
  const barcodes = routeById('renderBarcode');
  let dir = '';
  let key = '';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'render-barcode-asset-'));
    await buildLambdaAsset(barcodes.handler, join(dir, 'asset'));
    ({ key } = await createTestKey({ organizationId: uniqueOrganization(), scopes: ['labels:read'] }));
  }, 60_000);

  afterAll(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  async function invoke(asset: string, requests: ReadonlyArray<{ query: string; headers?: Record<string, string> }>): Promise<BarcodeResponse[]> {
    const eventsFile = join(dir, 'events.json');
    const resultFile = join(dir, 'results.json');
    writeFileSync(eventsFile, JSON.stringify(requests.map(({ query, headers }) => apiGatewayEvent(barcodes, { query, key, headers }))));
    await run(process.execPath, ['--input-type=module', '-e', SEQUENCE_INVOKER, pathToFileURL(join(asset, 'index.mjs')).href, eventsFile, resultFile], {
      env: lambdaEnvironment(process.env, barcodes),
      cwd: dir,
      timeout: 30_000,
    });
    return JSON.parse(readFileSync(resultFile, 'utf8')) as BarcodeResponse[];
  }

  const svgOf = (response: BarcodeResponse) => (response.isBase64Encoded ? Buffer.from(response.body ?? '', 'base64').toString('utf8') : (response.body ?? ''));

  it('carries one encoder file per format beside its entry', () => {
    // Act
    const encoders = readdirSync(join(dir, 'asset', 'encoders')).filter((file) => file.endsWith('.mjs'));

    // Assess
    expect(encoders.sort()).toEqual(
      Object.values(ENCODER_MODULES)
        .map((name) => `${name}.mjs`)
        .sort(),
    );
  });

  it('renders QR, Code 128, EAN-13, PDF417 and Data Matrix that scan back to their payloads', { timeout: 60_000 }, async () => {
    // Prepare
    const cases: ReadonlyArray<{ format: BarcodeFormat; payload: string; expected: string }> = [
      { format: 'qr', payload: 'INV-000123 Süd', expected: 'INV-000123 Süd' },
      { format: 'code128', payload: 'SKU-00042-ABC', expected: 'SKU-00042-ABC' },
      { format: 'ean13', payload: '590123412345', expected: '5901234123457' },
      { format: 'pdf417', payload: 'Order 4711; ship to dock 3', expected: 'Order 4711; ship to dock 3' },
      { format: 'datamatrix', payload: 'INV-000123 lot 7/B', expected: 'INV-000123 lot 7/B' },
    ];

    // Act
    const responses = await invoke(
      join(dir, 'asset'),
      cases.map(({ format, payload }) => ({ query: new URLSearchParams({ format, payload }).toString() })),
    );

    // Assess
    for (const [index, { format, expected }] of cases.entries()) {
      const response = responses[index];
      expect(response?.statusCode, `${format}: ${response?.body}`).toBe(200);
      expect(response?.headers['Content-Type']).toMatch(/^image\/svg\+xml/);
      const scanned = scan(rasterize(svgOf(response as BarcodeResponse)), format);
      expect(scanned.format, format).toBe(ZXING_FORMAT[format]);
      expect(scanned.text, format).toBe(expected);
    }
  });

  it('answers a matching If-None-Match with 304 without any encoder file, which a render needs', { timeout: 60_000 }, async () => {
    // Prepare
    const query = new URLSearchParams({ format: 'qr', payload: 'ETAG-PROBE-1' }).toString();
    const [rendered] = await invoke(join(dir, 'asset'), [{ query }]);
    const etag = rendered?.headers.ETag ?? '';
    expect(etag).not.toBe('');
    const stripped = join(dir, 'without-encoders');
    cpSync(join(dir, 'asset'), stripped, { recursive: true });
    rmSync(join(stripped, 'encoders'), { recursive: true });

    // Act
    const [revalidated, unrenderable] = await invoke(stripped, [{ query, headers: { 'If-None-Match': etag } }, { query }]);

    // Assess
    expect(revalidated).toMatchObject({ statusCode: 304, headers: { ETag: etag } });
    expect(revalidated?.body ?? '').toBe('');
    expect(unrenderable?.statusCode).toBe(500);
  });
});
