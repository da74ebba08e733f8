import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../infra/api-function.ts';
import { lambdaEsbuildOptions } from '../../infra/bundling.ts';
import { REFERENCE_DOCS_HANDLER } from '../../infra/reference-docs.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { checkoutReferencePageFiles } from '../../local/reference-page.ts';
import {
  OPENAPI_ASSET_FILE,
  OPENAPI_DOCUMENT_PATH,
  REDOC_BUNDLE_ASSET_FILE,
  REDOC_BUNDLE_PATH,
  REFERENCE_PAGE_CSP,
  REFERENCE_PAGE_PATH,
  createReferencePage,
} from '../../lib/app/reference-page.ts';

// The docs function as a stage runs it (docs/api-guide.md#api-reference): bundled with the stack's
// esbuild options, with the two files its asset gets next to the bundle, invoked with API Gateway
// v2 events. It must answer exactly as the local server does, and unknown /docs/… paths with the
// API's 404 problem document.

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const checkout = checkoutReferencePageFiles();
const localPage = createReferencePage(checkout);
let directory: string;
let handler: Handler;

beforeAll(async () => {
  directory = mkdtempSync(join(tmpdir(), 'reference-docs-'));
  // No source map: vite would look for the (omitted) sources when importing the bundle.
  const result = await build({ ...lambdaEsbuildOptions(join(REPO_ROOT, REFERENCE_DOCS_HANDLER)), sourcemap: false, logLevel: 'error' });
  for (const file of result.outputFiles) writeFileSync(join(directory, basename(file.path)), file.contents);
  copyFileSync(checkout.openApiFile, join(directory, OPENAPI_ASSET_FILE));
  copyFileSync(checkout.redocBundleFile, join(directory, REDOC_BUNDLE_ASSET_FILE));
  ({ handler } = (await import(pathToFileURL(join(directory, 'index.mjs')).href)) as { handler: Handler });
}, 60_000);

afterAll(() => {
  if (directory) rmSync(directory, { recursive: true, force: true });
});

async function invoke(path: string, method: 'GET' | 'POST' = 'GET'): Promise<APIGatewayProxyStructuredResultV2> {
  const event = apiGatewayEvent({ method, path });
  return handler(event, invocationContext(event, 'ReferenceDocsFunction'));
}

const header = (result: APIGatewayProxyStructuredResultV2, name: string) => result.headers?.[name];

describe('the docs function', () => {
  it('serves the page as HTML with its Content-Security-Policy', async () => {
    // Act
    const result = await invoke(REFERENCE_PAGE_PATH);

    // Assess
    expect(result.statusCode).toBe(200);
    expect(header(result, 'Content-Type')).toBe('text/html; charset=utf-8');
    expect(header(result, 'Content-Security-Policy')).toBe(REFERENCE_PAGE_CSP);
    expect(header(result, 'Cache-Control')).toBe('no-cache');
    expect(result.body).toContain('<redoc spec-url="docs/openapi.json"');
  });

  it('serves docs/openapi.json as it is in the checkout', async () => {
    // Act
    const result = await invoke(OPENAPI_DOCUMENT_PATH);

    // Assess
    expect(result.statusCode).toBe(200);
    expect(header(result, 'Content-Type')).toBe('application/json; charset=utf-8');
    expect(header(result, 'Cache-Control')).toBe('no-cache');
    expect(result.body).toBe(readFileSync(checkout.openApiFile, 'utf8'));
  });

  it('serves the Redoc bundle as JavaScript, cacheable for an hour', async () => {
    // Act
    const result = await invoke(REDOC_BUNDLE_PATH);

    // Assess
    expect(result.statusCode).toBe(200);
    expect(header(result, 'Content-Type')).toBe('text/javascript; charset=utf-8');
    expect(header(result, 'Cache-Control')).toBe('public, max-age=3600');
    expect(result.body).not.toContain('https://cdn.redoc.ly/');
  });

  it.each([REFERENCE_PAGE_PATH, OPENAPI_DOCUMENT_PATH, REDOC_BUNDLE_PATH])('answers %s exactly as the local server does', async (path) => {
    // Act
    const result = await invoke(path);

    // Assess
    expect(result).toEqual(localPage('GET', path));
  });

  it.each([
    ['GET', '/docs/x'],
    ['POST', REFERENCE_PAGE_PATH],
  ] as const)('answers %s %s with the API’s 404 problem document', async (method, path) => {
    // Act
    const result = await invoke(path, method);
    const body = JSON.parse(result.body ?? '') as Record<string, unknown>;

    // Assess
    expect(result.statusCode).toBe(404);
    expect(header(result, 'Content-Type')).toBe('application/problem+json');
    expect(body).toMatchObject({ status: 404, code: 'customer-api.route.not-found', instance: path, type: 'urn:problem-type:customer-api.route.not-found' });
    expect(body.traceId).toEqual(expect.any(String));
  });
});
