import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { ReferencePageFiles } from '../lib/app/reference-page.ts';

/**
 * Where the reference page's files are in this checkout; the page itself is lib/app/reference-page.ts,
 * shared with the stage's docs function (docs/api-guide.md#api-reference), which has its own copies.
 */
export function checkoutReferencePageFiles(): ReferencePageFiles {
  return {
    openApiFile: fileURLToPath(new URL('../docs/openapi.json', import.meta.url)),
    redocBundleFile: createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'),
    rereadDocument: true,
  };
}
