import { createHash } from 'node:crypto';
import { header } from './headers.ts';
import type { HandlerResult, HttpEvent } from './types.ts';

/**
 * A deterministic SVG image: cacheable privately for a day, with a CSP that forbids anything
 * active inside it. Its strong ETag is derived from what determines the image (`inputs`: the
 * validated request and the renderer's version), not from the rendered bytes, so a matching
 * `If-None-Match` is answered 304 before anything is rendered (or loaded to render with).
 */
export async function svgImageResult(event: HttpEvent, inputs: unknown, render: () => string | Promise<string>): Promise<HandlerResult> {
  const etag = `"${createHash('sha256').update(canonicalJson(inputs), 'utf8').digest('base64url').slice(0, 32)}"`;
  const headers = {
    ETag: etag,
    'Cache-Control': 'private, max-age=86400',
    'Content-Security-Policy': "default-src 'none'",
  };
  const ifNoneMatch = header(event, 'if-none-match');
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    return { status: 304, empty: true, headers };
  }
  return { status: 200, text: await render(), mediaType: 'image/svg+xml', headers };
}

/** JSON with object keys sorted, so equal inputs hash equally whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, nested: unknown) =>
    nested && typeof nested === 'object' && !Array.isArray(nested)
      ? Object.fromEntries(Object.entries(nested as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : nested,
  );
}
