import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BARCODE_RENDERER_VERSION } from '../../../lib/labels/domain/render-barcode.ts';
import { svgImageResult } from '../../../lib/platform/http/image-response.ts';
import type { HandlerResult, HttpEvent } from '../../../lib/platform/http/types.ts';

/** The direct (not pre-serialized) result an image handler returns. */
const result = (handled: HandlerResult) => handled as { status: number; headers: Record<string, string>; empty?: boolean };
const eventWith = (headers: Record<string, string> = {}) => ({ headers }) as unknown as HttpEvent;

describe('svgImageResult', () => {
  it('answers a matching If-None-Match with 304 without rendering', async () => {
    // Prepare
    let renders = 0;
    const render = () => {
      renders += 1;
      return '<svg/>';
    };
    const first = result(await svgImageResult(eventWith(), { payload: 'A', format: 'qr' }, render));
    const etag = String(first.headers.ETag);
    // Act
    const conditional = result(await svgImageResult(eventWith({ 'if-none-match': `"other", ${etag}` }), { format: 'qr', payload: 'A' }, render));
    // Assess
    expect(first.status).toBe(200);
    expect(conditional).toMatchObject({ status: 304, empty: true, headers: { ETag: etag } });
    expect(renders).toBe(1);
  });

  it('gives other inputs another ETag, and renders them', async () => {
    let renders = 0;
    const render = () => `<svg n="${(renders += 1)}"/>`;
    const first = result(await svgImageResult(eventWith(), { payload: 'A' }, render));
    const other = result(await svgImageResult(eventWith({ 'if-none-match': String(first.headers.ETag) }), { payload: 'B' }, render));
    expect(other.status).toBe(200);
    expect(other.headers.ETag).not.toBe(first.headers.ETag);
    expect(renders).toBe(2);
  });

  it('names the installed bwip-js release in the renderer version the ETag is derived from', () => {
    const installed = (JSON.parse(readFileSync('node_modules/bwip-js/package.json', 'utf8')) as { version: string }).version;
    expect(BARCODE_RENDERER_VERSION.bwipJs).toBe(installed);
  });
});
