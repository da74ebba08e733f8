import { createHash } from 'node:crypto';
import { header } from './headers.ts';
import type { HandlerResult, HttpEvent } from './types.ts';

/**
 * A deterministic SVG image: strong ETag from its bytes, cacheable privately for a day, and a
 * CSP that forbids anything active inside it. `If-None-Match` with the same tag gets 304.
 */
export function svgImageResult(svg: string, event: HttpEvent): HandlerResult {
  const etag = `"${createHash('sha256').update(svg, 'utf8').digest('base64url').slice(0, 32)}"`;
  const headers = {
    ETag: etag,
    'Cache-Control': 'private, max-age=86400',
    'Content-Security-Policy': "default-src 'none'",
  };
  const ifNoneMatch = header(event, 'if-none-match');
  if (ifNoneMatch && ifNoneMatch.split(',').some((tag) => tag.trim() === etag || tag.trim() === '*')) {
    return { status: 304, empty: true, headers };
  }
  return { status: 200, text: svg, mediaType: 'image/svg+xml', headers };
}
