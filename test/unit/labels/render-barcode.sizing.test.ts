import bwipjs from 'bwip-js';
import { describe, expect, it } from 'vitest';
import { BARCODE_FORMATS, type BarcodeFormat } from '../../../lib/labels/domain/formats.ts';
import { renderBarcode } from '../../../lib/labels/domain/render-barcode.ts';
import { SYMBOLOGIES } from '../../../lib/labels/domain/symbologies.ts';
import { columnsAreWhite, darkBounds, rasterize, rowsAreWhite, scan, svgSize } from '../../support/barcode-scanner.ts';

const PAYLOADS: Readonly<Record<BarcodeFormat, string>> = {
  qr: 'INV-000123',
  datamatrix: 'INV-000123',
  'gs1-datamatrix': '(01)09501101530003(17)260101(10)ABC123',
  aztec: 'INV-000123',
  pdf417: 'INV-000123',
  code128: 'ABC-123',
  'gs1-128': '(01)09501101530003(17)260101(10)ABC123',
  ean13: '5901234123457',
  upca: '036000291452',
  code39: 'ABC-123',
};

const TWO_D: readonly BarcodeFormat[] = ['qr', 'datamatrix', 'gs1-datamatrix', 'aztec', 'pdf417'];
const LINEAR: readonly BarcodeFormat[] = ['code128', 'gs1-128', 'ean13', 'upca', 'code39'];

/** Documented natural module (X) sizes in mm. */
const MODULE_MM: Readonly<Record<BarcodeFormat, number>> = {
  qr: 0.5,
  datamatrix: 0.5,
  'gs1-datamatrix': 0.5,
  aztec: 0.5,
  pdf417: 0.33,
  code128: 0.33,
  'gs1-128': 0.33,
  ean13: 0.33,
  upca: 0.33,
  code39: 0.33,
};

/** Standard minimum quiet zones in modules (left, right, top, bottom); Aztec needs none, we promise 1. */
const MIN_QUIET_ZONE: Readonly<Record<BarcodeFormat, readonly [number, number, number, number]>> = {
  qr: [4, 4, 4, 4],
  datamatrix: [1, 1, 1, 1],
  'gs1-datamatrix': [1, 1, 1, 1],
  aztec: [1, 1, 1, 1],
  pdf417: [2, 2, 2, 2],
  code128: [10, 10, 0, 0],
  'gs1-128': [10, 10, 0, 0],
  ean13: [11, 7, 0, 0],
  upca: [9, 9, 0, 0],
  code39: [10, 10, 0, 0],
};

const PX_PER_MM = 12;

function ratio(svg: string): number {
  const size = svgSize(svg);
  return size.widthMm / size.heightMm;
}

/** The scale() of the symbol's transform, as written: one factor when uniform, else two. */
function scaleOf(svg: string): { factors: number; x: number; y: number } {
  const match = /scale\(([^)]+)\)/.exec(svg);
  if (!match?.[1]) throw new Error('no scale transform');
  const [x = NaN, y = x] = match[1].split(/[\s,]+/).map(Number);
  return { factors: match[1].trim().split(/[\s,]+/).length, x, y };
}

/** Modules across (and down, for 2D) as bwip-js encodes the same payload, independent of our SVG. */
function rawModules(format: BarcodeFormat): { across: number; down?: number } {
  const [symbol] = bwipjs.raw({ bcid: SYMBOLOGIES[format].bcid, text: PAYLOADS[format] });
  if (!symbol) throw new Error('no symbol');
  // sbs alternates bar, space, bar...; a trailing space (Code 39's inter-character gap) draws nothing.
  if ('sbs' in symbol) return { across: symbol.sbs.slice(0, symbol.sbs.length - 1 + (symbol.sbs.length % 2)).reduce((sum, width) => sum + width, 0) };
  return { across: symbol.pixx, down: symbol.pixy };
}

describe('renderBarcode SVG root', () => {
  it.each(BARCODE_FORMATS)('%s has mm width/height and a matching viewBox', async (format) => {
    // Act
    const svg = await renderBarcode({ format, payload: PAYLOADS[format] });

    // Assess
    const size = svgSize(svg);
    expect(size.widthMm).toBeGreaterThan(0);
    expect(size.heightMm).toBeGreaterThan(0);
    expect(size.viewBox).toEqual([0, 0, size.widthMm, size.heightMm]);
  });

  it.each(BARCODE_FORMATS)('%s is self-contained: white background, black marks, no text/fonts/scripts/references', async (format) => {
    // Act
    const svg = await renderBarcode({ format, payload: PAYLOADS[format] });

    // Assess
    const { widthMm, heightMm } = svgSize(svg);
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).toContain(`<rect x="0" y="0" width="${widthMm}" height="${heightMm}" fill="#FFFFFF"/>`);
    expect(svg).not.toMatch(/<script|<text|<image|<style|<use|<foreignObject|href|url\(|font|@import|on[a-z]+=/i);
    expect(svg.match(/<svg\b/g)).toHaveLength(1);
    expect(/^[\t\n\r\x20-\x7e]*$/.test(svg)).toBe(true);
    for (const [, color] of svg.matchAll(/stroke="([^"]*)"/g)) expect(color).toBe('#000000');
    for (const [, color] of svg.matchAll(/fill="([^"]*)"/g)) expect(color).toBe('#FFFFFF');
  });

  it.each<{ format: BarcodeFormat; payload: string }>([
    { format: 'code128', payload: '<script>alert(1)</script>' },
    { format: 'qr', payload: '"/><script>alert(1)</script><text>' },
    { format: 'datamatrix', payload: '<image href="https://example.com/x.png"/>' },
  ])('$format never copies the payload into the SVG', async ({ format, payload }) => {
    // Act
    const svg = await renderBarcode({ format, payload });

    // Assess
    expect(svg).not.toContain(payload);
    expect(svg).not.toMatch(/<script|<text|<image|href/);
  });
});

describe('renderBarcode natural size', () => {
  it.each(BARCODE_FORMATS)('%s draws modules at the documented X-dimension', async (format) => {
    // Prepare
    const modules = rawModules(format);
    const modulePx = MODULE_MM[format] * PX_PER_MM;

    // Act
    const bounds = darkBounds(rasterize(await renderBarcode({ format, payload: PAYLOADS[format] }), PX_PER_MM));

    // Assess
    expect(Math.abs(bounds.right - bounds.left - modules.across * modulePx)).toBeLessThanOrEqual(2);
    if (modules.down !== undefined) expect(Math.abs(bounds.bottom - bounds.top - modules.down * modulePx)).toBeLessThanOrEqual(2);
  });

  it.each<{ format: BarcodeFormat; heightMm: number }>([
    { format: 'ean13', heightMm: 22.85 },
    { format: 'upca', heightMm: 22.85 },
  ])('$format bars are the GS1 nominal $heightMm mm tall', async ({ format, heightMm }) => {
    // Act
    const svg = await renderBarcode({ format, payload: PAYLOADS[format] });

    // Assess
    expect(svgSize(svg).heightMm).toBe(heightMm);
  });

  it.each(['code128', 'gs1-128', 'code39'] as const)('%s bars are at least 15 mm and 15 %% of the length tall', async (format) => {
    // Act
    const { widthMm, heightMm } = svgSize(await renderBarcode({ format, payload: PAYLOADS[format] }));

    // Assess
    expect(heightMm).toBeGreaterThanOrEqual(15);
    expect(heightMm).toBeGreaterThanOrEqual(0.15 * (widthMm - 22 * 0.33) - 1e-3);
  });
});

describe('renderBarcode quiet zone', () => {
  it.each(BARCODE_FORMATS)('%s keeps at least the standard quiet zone white', async (format) => {
    // Prepare
    const [left, right, top, bottom] = MIN_QUIET_ZONE[format];
    const modulePx = MODULE_MM[format] * PX_PER_MM;

    // Act
    const raster = rasterize(await renderBarcode({ format, payload: PAYLOADS[format] }), PX_PER_MM);

    // Assess: the quiet-zone columns/rows are blank (1 px allowance for edge rounding) ...
    expect(columnsAreWhite(raster, 0, Math.floor(left * modulePx) - 1)).toBe(true);
    expect(columnsAreWhite(raster, raster.width - Math.floor(right * modulePx) + 1, raster.width)).toBe(true);
    expect(rowsAreWhite(raster, 0, Math.floor(top * modulePx) - 1)).toBe(true);
    expect(rowsAreWhite(raster, raster.height - Math.floor(bottom * modulePx) + 1, raster.height)).toBe(true);
    // ... and the symbol does begin right after the configured quiet zone.
    const bounds = darkBounds(raster);
    expect(Math.abs(bounds.left - SYMBOLOGIES[format].quietZone.left * modulePx)).toBeLessThanOrEqual(1);
  });
});

describe('renderBarcode with one size', () => {
  it.each(BARCODE_FORMATS)('%s with widthMm only keeps the natural aspect ratio', async (format) => {
    // Prepare
    const natural = await renderBarcode({ format, payload: PAYLOADS[format] });

    // Act
    const sized = await renderBarcode({ format, payload: PAYLOADS[format], widthMm: 50 });

    // Assess
    expect(svgSize(sized).widthMm).toBe(50);
    expect(ratio(sized)).toBeCloseTo(ratio(natural), 3);
    const scale = scaleOf(sized);
    const naturalScale = scaleOf(natural);
    expect(scale.x / scale.y).toBeCloseTo(naturalScale.x / naturalScale.y, 5);
  });

  it.each(BARCODE_FORMATS)('%s with heightMm only keeps the natural aspect ratio', async (format) => {
    // Prepare
    const natural = await renderBarcode({ format, payload: PAYLOADS[format] });

    // Act
    const sized = await renderBarcode({ format, payload: PAYLOADS[format], heightMm: 30 });

    // Assess
    expect(svgSize(sized).heightMm).toBe(30);
    expect(ratio(sized)).toBeCloseTo(ratio(natural), 3);
  });
});

describe('renderBarcode with width and height', () => {
  it.each(
    TWO_D.flatMap((format) => [
      { format, widthMm: 80, heightMm: 30 },
      { format, widthMm: 30, heightMm: 80 },
    ]),
  )('$format in a $widthMm × $heightMm mm box is not distorted and is centred', async ({ format, widthMm, heightMm }) => {
    // Prepare
    const pxPerMm = 8;
    const natural = darkBounds(rasterize(await renderBarcode({ format, payload: PAYLOADS[format] }), pxPerMm));

    // Act
    const svg = await renderBarcode({ format, payload: PAYLOADS[format], widthMm, heightMm });

    // Assess: the box is exactly as asked ...
    expect(svgSize(svg)).toMatchObject({ widthMm, heightMm, viewBox: [0, 0, widthMm, heightMm] });
    // ... one uniform scale, so modules keep their natural shape ...
    expect(scaleOf(svg).factors).toBe(1);
    const raster = rasterize(svg, pxPerMm);
    const bounds = darkBounds(raster);
    const aspect = (bounds.right - bounds.left) / (bounds.bottom - bounds.top);
    expect(aspect).toBeCloseTo((natural.right - natural.left) / (natural.bottom - natural.top), 1);
    // ... centred in the box, with background around it ...
    expect(Math.abs(bounds.left - (raster.width - bounds.right))).toBeLessThanOrEqual(2);
    expect(Math.abs(bounds.top - (raster.height - bounds.bottom))).toBeLessThanOrEqual(2);
    // ... and it still scans.
    expect(scan(raster, format).text.length).toBeGreaterThan(0);
  });

  it.each(
    LINEAR.flatMap((format) => [
      { format, widthMm: 60, heightMm: 10 },
      { format, widthMm: 120, heightMm: 60 },
    ]),
  )('$format in a $widthMm × $heightMm mm box fills it: uniform bar widths, stretched height', async ({ format, widthMm, heightMm }) => {
    // Prepare
    const naturalRaster = rasterize(await renderBarcode({ format, payload: PAYLOADS[format] }), PX_PER_MM);
    const natural = darkBounds(naturalRaster);

    // Act
    const svg = await renderBarcode({ format, payload: PAYLOADS[format], widthMm, heightMm });

    // Assess
    expect(svgSize(svg)).toMatchObject({ widthMm, heightMm, viewBox: [0, 0, widthMm, heightMm] });
    const raster = rasterize(svg, PX_PER_MM);
    const bounds = darkBounds(raster);
    // Horizontally everything (quiet zones and bars) is scaled by the same factor ...
    expect(bounds.left / raster.width).toBeCloseTo(natural.left / naturalRaster.width, 2);
    expect(bounds.right / raster.width).toBeCloseTo(natural.right / naturalRaster.width, 2);
    // ... while the bars take the whole height.
    expect(bounds.top).toBe(0);
    expect(bounds.bottom).toBe(raster.height);
    expect(scan(raster, format).text.length).toBeGreaterThan(0);
  });
});

describe('renderBarcode determinism', () => {
  it.each(BARCODE_FORMATS)('%s renders byte-identical SVG for the same request', async (format) => {
    // Prepare
    const request = { format, payload: PAYLOADS[format], widthMm: 41.3, heightMm: 27.9 };

    // Act
    const first = await renderBarcode(request);
    await renderBarcode({ format: 'qr', payload: 'something else entirely' });
    const second = await renderBarcode({ ...request });

    // Assess
    expect(second).toBe(first);
  });
});
