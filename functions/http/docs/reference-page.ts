import { fileURLToPath } from 'node:url';
import { createFallbackHandler } from '../../../lib/app/fallback.ts';
import type { ApiContext, HttpEvent } from '../../../lib/platform/http/types.ts';
import { OPENAPI_ASSET_FILE, REDOC_BUNDLE_ASSET_FILE, createReferencePage } from '../../../lib/app/reference-page.ts';

/**
 * The stage's API reference (docs/api-guide.md#api-reference), on its own GET routes outside the
 * API's chain: no API key, no rate limit, no storage. infra/reference-docs.ts copies the document
 * and the Redoc bundle next to this bundle at synth, so the stage serves the document of the code
 * it runs; each container reads them once, on first use.
 */
const page = createReferencePage({
  openApiFile: fileURLToPath(new URL(OPENAPI_ASSET_FILE, import.meta.url)),
  redocBundleFile: fileURLToPath(new URL(REDOC_BUNDLE_ASSET_FILE, import.meta.url)),
  rereadDocument: false,
});

/** Anything else (only reachable by invoking the function directly) gets `$default`'s own answer. */
const notFound = createFallbackHandler();

export async function handler(event: HttpEvent, context: ApiContext) {
  return page(event.requestContext.http.method, event.rawPath) ?? (await notFound(event, context));
}
