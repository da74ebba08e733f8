import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { readFileSync } from 'node:fs';

/**
 * The API reference page (docs/api-guide.md#api-reference): Redoc's standalone bundle renders
 * docs/openapi.json. Three public paths, no API key, and nothing from any other host: the bundle
 * comes from node_modules (redoc, pinned in package.json), the page names no web font, and its
 * Content-Security-Policy lets the browser load only from the server that sent it. The local
 * server (local/http-server.ts) and the stage's docs function (functions/http/docs/) both answer
 * with this module; only where the two files are differs.
 *
 * The page links the bundle and the document relatively (`docs/…` from `/docs`), so it works the
 * same under an API Gateway stage prefix. `/docs/` redirects to `/docs` for that reason.
 */

export const REFERENCE_PAGE_PATH = '/docs';
export const OPENAPI_DOCUMENT_PATH = '/docs/openapi.json';
export const REDOC_BUNDLE_PATH = '/docs/redoc.standalone.js';
/** The paths a stage routes to the docs function (the `/docs/` redirect is a local nicety). */
export const REFERENCE_DOCS_PATHS = [REFERENCE_PAGE_PATH, OPENAPI_DOCUMENT_PATH, REDOC_BUNDLE_PATH] as const;

/** Names of the two files in the docs function's asset, next to its bundle (infra/reference-docs.ts). */
export const OPENAPI_ASSET_FILE = 'openapi.json';
export const REDOC_BUNDLE_ASSET_FILE = 'redoc.standalone.js';

/**
 * Styles: Redoc (styled-components) writes its own style elements. Workers: its search index runs
 * in a worker built from a blob. Images and fonts: only data URLs of its own bundle.
 */
export const REFERENCE_PAGE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/**
 * Redoc's options as attributes of its element (the standalone bundle initializes `<redoc>`
 * itself, so the page has no inline script): success responses open, the curl example before the
 * generated JSON payload in the samples panel.
 */
export function referencePageHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Inventory and Warehouse Customer API reference</title>
<style>body { margin: 0; padding: 0; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }</style>
</head>
<body>
<redoc spec-url="docs/openapi.json" expand-responses="200,201,202,204,304" required-props-first="true" path-in-middle-panel="true" payload-sample-idx="1"></redoc>
<script src="docs/redoc.standalone.js"></script>
</body>
</html>
`;
}

/**
 * The one thing Redoc's bundle loads from elsewhere: the logo of its "API docs by Redocly" link,
 * from Redocly's CDN. It is served pointing at an empty data URL instead; the image then fails to
 * load and Redoc drops it (its own error handling), the link stays. If a Redoc upgrade changes the
 * URL, serving fails loudly here, and the browser test would see the request anyway.
 */
const REDOC_LOGO_URL = 'https://cdn.redoc.ly/redoc/logo-mini.svg';

/** The bundle as served: read once, with the logo URL replaced. */
export function servedRedocBundle(original: string): string {
  if (!original.includes(REDOC_LOGO_URL)) throw new Error(`redoc.standalone.js no longer names ${REDOC_LOGO_URL}: check what it loads from other hosts`);
  return original.replaceAll(REDOC_LOGO_URL, 'data:,');
}

export interface ReferencePageFiles {
  /** docs/openapi.json, or its copy in the docs function's asset. */
  openApiFile: string;
  /** redoc/bundles/redoc.standalone.js, or its copy; read once. */
  redocBundleFile: string;
  /**
   * Read the document on each request, so `npm run openapi` shows up without a restart (local
   * server). A Lambda asset never changes, so the function reads it once per container.
   */
  rereadDocument: boolean;
}

function textResult(body: string, contentType: string, headers: Record<string, string> = {}): APIGatewayProxyStructuredResultV2 {
  return { statusCode: 200, headers: { 'Content-Type': contentType, 'X-Content-Type-Options': 'nosniff', ...headers }, body };
}

/**
 * The reference page's handler: the response for one of its paths, or `undefined` for any other
 * request (the caller answers it: the local server's routes, the docs function's 404). GET and
 * HEAD only. The files are read on first use, so a missing one fails the request, not the import.
 */
export function createReferencePage(files: ReferencePageFiles): (method: string, path: string) => APIGatewayProxyStructuredResultV2 | undefined {
  let bundle: string | undefined;
  let document: string | undefined;
  return (method, path) => {
    if (method !== 'GET' && method !== 'HEAD') return undefined;
    switch (path) {
      case REFERENCE_PAGE_PATH:
        return textResult(referencePageHtml(), 'text/html; charset=utf-8', {
          'Content-Security-Policy': REFERENCE_PAGE_CSP,
          'Cache-Control': 'no-cache',
          'Referrer-Policy': 'no-referrer',
        });
      case `${REFERENCE_PAGE_PATH}/`:
        return { statusCode: 308, headers: { Location: '../docs' }, body: '' };
      case OPENAPI_DOCUMENT_PATH: {
        const body = files.rereadDocument ? readFileSync(files.openApiFile, 'utf8') : (document ??= readFileSync(files.openApiFile, 'utf8'));
        return textResult(body, 'application/json; charset=utf-8', { 'Cache-Control': 'no-cache', 'Access-Control-Allow-Origin': '*' });
      }
      case REDOC_BUNDLE_PATH:
        bundle ??= servedRedocBundle(readFileSync(files.redocBundleFile, 'utf8'));
        return textResult(bundle, 'text/javascript; charset=utf-8', { 'Cache-Control': 'public, max-age=3600' });
      default:
        return undefined;
    }
  };
}
