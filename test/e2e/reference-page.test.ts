import { randomUUID } from 'node:crypto';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { baseUrl, callApi, createTestKey } from '../support/api.ts';
import { expectProblem } from '../support/problem.ts';
import { concretePath, isWrite, routeLabel } from '../support/routes.ts';

/**
 * The API reference page (docs/api-guide.md#api-reference) in a real headless Chromium: every
 * operation of the route table is on it with its scope, statuses and curl example, and the page
 * loads nothing from any host but the server. The Chromium is Debian's (scripts/setup.sh installs
 * it); the screenshots land in test-artifacts/.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ARTIFACTS = join(ROOT, 'test-artifacts');
const routes: readonly RouteDefinition[] = ROUTES;

/** CHROMIUM_PATH, else the first Chromium or Chrome on PATH, else Debian's path. */
function chromiumExecutable(): string {
  const candidates = [
    ...(process.env.CHROMIUM_PATH ? [process.env.CHROMIUM_PATH] : []),
    ...(process.env.PATH ?? '')
      .split(delimiter)
      .flatMap((directory) => ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'].map((name) => join(directory, name))),
    '/usr/bin/chromium',
  ];
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not this one
    }
  }
  throw new Error("No Chromium found (set CHROMIUM_PATH or run `npm run setup`, which installs Debian's chromium).");
}

describe('GET /docs in headless Chromium', () => {
  let browser: Browser;
  let page: Page;
  const requested: string[] = [];
  const consoleErrors: string[] = [];

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    browser = await puppeteer.launch({
      executablePath: chromiumExecutable(),
      headless: true,
      // Root (CI, containers) cannot use Chromium's sandbox; the page is our own.
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--no-first-run', '--disable-background-networking', '--disable-component-update'],
    });
    page = await browser.newPage();
    await page.setViewport({ width: 1400, height: 1000 });
    page.on('request', (request) => requested.push(request.url()));
    page.on('console', (message) => {
      if (message.type() === 'error') consoleErrors.push(message.text());
    });
    page.on('pageerror', (error) => consoleErrors.push(String(error)));
    const response = await page.goto(`${baseUrl()}/docs`, { waitUntil: 'networkidle0', timeout: 60_000 });
    expect(response?.status()).toBe(200);
    // Redoc renders one section per operation, with the element id `operation/<operationId>`.
    await page.waitForSelector(`[id="operation/${routes[routes.length - 1]?.operationId}"]`, { timeout: 60_000 });
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
  });

  it('saves screenshots as test artifacts', async () => {
    await page.screenshot({ path: join(ARTIFACTS, 'reference-page.png') });
    const operation = await page.$('[id="operation/createBom"]');
    expect(operation).not.toBeNull();
    await operation?.screenshot({ path: join(ARTIFACTS, 'reference-page-operation.png') });
  });

  it.each(routes.map((route) => [routeLabel(route), route] as const))('shows %s with its summary, scope, statuses and curl example', async (_label, route) => {
    const text = await page.$eval(`[id="operation/${route.operationId}"]`, (element) => (element as unknown as { innerText: string }).innerText);
    expect(text).toContain(route.summary);
    expect(text).toContain(route.path);
    expect(text).toContain(`Requires scope ${route.scope}`);
    for (const status of [route.success.status, ...route.errorStatuses, 401, 403, 429]) expect(text, `status ${status}`).toContain(String(status));
    expect(text).toMatch(/curl (-X \w+ )?"\$BASE_URL\/v1\//);
  });

  it('lists the problem codes of a status', async () => {
    // Responses are collapsed; their descriptions (with the codes) are in the page all the same.
    const html = await page.$eval('[id="operation/updateBom"]', (element) => element.innerHTML);
    expect(html).toContain('customer-api.boms.revision-conflict');
    expect(html).toContain('customer-api.idempotency.key-reused');
  });

  it('makes no request to any host but the server, and logs no error', () => {
    const server = new URL(baseUrl()).host;
    const elsewhere = requested.filter((url) => !url.startsWith('data:') && !url.startsWith('blob:') && new URL(url).host !== server);
    expect(elsewhere).toEqual([]);
    expect(requested).toContain(`${baseUrl()}/docs/openapi.json`);
    expect(consoleErrors).toEqual([]);
  });
});

describe('GET /docs, /docs/openapi.json and the Redoc bundle', () => {
  it('serves them without an API key, with their media types', async () => {
    const page = await fetch(`${baseUrl()}/docs`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    const html = await page.text();
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);

    const document = await fetch(`${baseUrl()}/docs/openapi.json`);
    expect(document.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(((await document.json()) as { openapi: string }).openapi).toBe('3.1.0');

    const bundle = await fetch(`${baseUrl()}/docs/redoc.standalone.js`);
    expect(bundle.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await bundle.text()).not.toContain('https://cdn.redoc.ly/');
  });

  it('redirects /docs/ to /docs and leaves other methods to the API (its 404 problem)', async () => {
    const slash = await fetch(`${baseUrl()}/docs/`, { redirect: 'manual' });
    expect(slash.status).toBe(308);
    expect(new URL(slash.headers.get('location') ?? '', `${baseUrl()}/docs/`).pathname).toBe('/docs');
    await expectProblem(await callApi('/docs', { method: 'POST' }), 404, 'customer-api.route.not-found');
  });
});

describe('docs/openapi.json documents what the shared chain answers (checked by callApi)', () => {
  let key: string;
  beforeAll(async () => {
    key = (await createTestKey()).key;
  });
  const jsonBodyRoutes = routes.filter((route) => route.requestBody?.mediaType === 'json');
  /** A body of the route's media type (empty: its validation fails), or none. */
  const bodyOf = (route: RouteDefinition): { headers: Record<string, string>; body?: string | FormData } => {
    if (route.requestBody?.mediaType === 'json') return { headers: { 'content-type': 'application/json' }, body: '{}' };
    if (route.requestBody?.mediaType === 'multipart') return { headers: {}, body: new FormData() };
    return { headers: {} };
  };

  it.each(routes.map((route) => [routeLabel(route), route] as const))('%s: 400 for an unknown query parameter', async (_label, route) => {
    const { headers, body } = bodyOf(route);
    if (isWrite(route)) headers['idempotency-key'] = randomUUID();
    await expectProblem(await callApi(`${concretePath(route)}?unknownParameter=1`, { method: route.method, key, headers, body }), 400);
  });

  it.each(routes.filter(isWrite).map((route) => [routeLabel(route), route] as const))('%s: 400 without an Idempotency-Key', async (_label, route) => {
    const { headers, body } = bodyOf(route);
    // The body is checked first on some routes: either 400 is one the document lists (callApi checks the code).
    await expectProblem(await callApi(concretePath(route), { method: route.method, key, headers, body }), 400);
  });

  it('answers 400 key-missing before anything else on a write without a body', async () => {
    await expectProblem(await callApi('/v1/attachments/att_01J000000000000000000000', { method: 'DELETE', key }), 400, 'customer-api.idempotency.key-missing');
  });

  it.each(jsonBodyRoutes.map((route) => [routeLabel(route), route] as const))(
    '%s: 415 for XML, 413 for a body over its limit (256 KiB unless the route sets its own)',
    async (_label, route) => {
      const call = (contentType: string, body: string) =>
        callApi(concretePath(route), { method: route.method, key, headers: { 'idempotency-key': randomUUID(), 'content-type': contentType }, body });
      const limit = route.requestBody && 'maxBytes' in route.requestBody && route.requestBody.maxBytes !== undefined ? route.requestBody.maxBytes : 256 * 1024;
      await expectProblem(await call('application/xml', '<bom/>'), 415, 'customer-api.request.unsupported-media-type');
      await expectProblem(await call('application/json', `"${'x'.repeat(limit + 44 * 1024)}"`), 413, 'customer-api.request.too-large');
    },
  );

  it('answers JSON as text/plain when asked, and 406 for a media type no route offers', async () => {
    const plain = await callApi('/v1/imports/kinds', { key, headers: { accept: 'text/plain' } });
    expect(plain.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(JSON.parse(await plain.text())).toHaveProperty('data');
    await expectProblem(await callApi('/v1/imports/kinds', { key, headers: { accept: 'application/xml' } }), 406, 'customer-api.request.not-acceptable');
  });
});
