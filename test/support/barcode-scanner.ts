import { Resvg } from '@resvg/resvg-js';
import zxing from '@zxing/library';
import type { BarcodeFormat } from '../../lib/labels/domain/formats.ts';

/** Test helpers: rasterise our SVG like a printer would and read it back like a scanner. */

const { BarcodeFormat: ZxingFormat, BinaryBitmap, DecodeHintType, HybridBinarizer, MultiFormatReader, RGBLuminanceSource } = zxing;

export const ZXING_FORMAT: Readonly<Record<BarcodeFormat, number>> = {
  qr: ZxingFormat.QR_CODE,
  datamatrix: ZxingFormat.DATA_MATRIX,
  'gs1-datamatrix': ZxingFormat.DATA_MATRIX,
  aztec: ZxingFormat.AZTEC,
  pdf417: ZxingFormat.PDF_417,
  code128: ZxingFormat.CODE_128,
  'gs1-128': ZxingFormat.CODE_128,
  ean13: ZxingFormat.EAN_13,
  upca: ZxingFormat.UPC_A,
  code39: ZxingFormat.CODE_39,
};

const CSS_PIXELS_PER_MM = 96 / 25.4;

export interface Raster {
  width: number;
  height: number;
  /** One luminance byte per pixel, row-major. */
  luminance: Uint8ClampedArray;
}

export interface SvgSize {
  widthMm: number;
  heightMm: number;
  viewBox: [number, number, number, number];
}

export function svgSize(svg: string): SvgSize {
  const root = /<svg\b[^>]*>/.exec(svg)?.[0] ?? '';
  const width = /\swidth="([0-9.]+)mm"/.exec(root)?.[1];
  const height = /\sheight="([0-9.]+)mm"/.exec(root)?.[1];
  const viewBox = /\sviewBox="([^"]+)"/.exec(root)?.[1];
  if (width === undefined || height === undefined || viewBox === undefined) throw new Error(`SVG root lacks mm size or viewBox: ${root}`);
  const [x = NaN, y = NaN, w = NaN, h = NaN] = viewBox.split(/\s+/).map(Number);
  return { widthMm: Number(width), heightMm: Number(height), viewBox: [x, y, w, h] };
}

/** Renders the SVG on white at the given resolution (default 12 px/mm: 4 px per 0.33 mm module). */
export function rasterize(svg: string, pixelsPerMm = 12): Raster {
  const image = new Resvg(svg, {
    fitTo: { mode: 'zoom', value: pixelsPerMm / CSS_PIXELS_PER_MM },
    background: 'white',
    font: { loadSystemFonts: false },
  }).render();
  const rgba = image.pixels;
  const luminance = new Uint8ClampedArray(image.width * image.height);
  for (let i = 0; i < luminance.length; i += 1) {
    const r = rgba[i * 4] ?? 255;
    const g = rgba[i * 4 + 1] ?? 255;
    const b = rgba[i * 4 + 2] ?? 255;
    luminance[i] = Math.round(0.299 * r + 0.587 * g + 0.114 * b);
  }
  return { width: image.width, height: image.height, luminance };
}

export interface Scan {
  text: string;
  format: number;
}

/**
 * Decodes the raster, restricted to the one zxing format expected for `format` (so UPC-A is not
 * reported as EAN-13 with a leading 0). GS1 formats are read like a GS1 scanner: FNC1 in Code 128
 * becomes the `]C1` identifier / GS separators.
 */
export function scan(raster: Raster, format: BarcodeFormat): Scan {
  const hints = new Map<number, unknown>([
    [DecodeHintType.POSSIBLE_FORMATS, [ZXING_FORMAT[format]]],
    [DecodeHintType.TRY_HARDER, true],
  ]);
  if (format.startsWith('gs1-')) hints.set(DecodeHintType.ASSUME_GS1, true);
  const source = new RGBLuminanceSource(raster.luminance, raster.width, raster.height);
  const bitmap = new BinaryBitmap(new HybridBinarizer(source));
  const reader = new MultiFormatReader();
  const result = reader.decode(bitmap, hints as Map<never, unknown>);
  return { text: result.getText(), format: result.getBarcodeFormat() };
}

/** True when every pixel in the column range [from, to) is (near) white. */
export function columnsAreWhite(raster: Raster, from: number, to: number): boolean {
  for (let y = 0; y < raster.height; y += 1) {
    for (let x = from; x < to; x += 1) {
      if ((raster.luminance[y * raster.width + x] ?? 0) < 250) return false;
    }
  }
  return true;
}

/** True when every pixel in the row range [from, to) is (near) white. */
export function rowsAreWhite(raster: Raster, from: number, to: number): boolean {
  for (let y = from; y < to; y += 1) {
    for (let x = 0; x < raster.width; x += 1) {
      if ((raster.luminance[y * raster.width + x] ?? 0) < 250) return false;
    }
  }
  return true;
}

const GS = '\u001d';

/**
 * GS1 AIs with a predefined (fixed) length, by two-digit prefix (GS1 General Specifications,
 * Figure 7.8.5-2). Every other AI is variable length and is followed by GS unless it is last.
 */
const FIXED_LENGTH_PREFIXES = new Set([
  '00',
  '01',
  '02',
  '03',
  '04',
  '11',
  '12',
  '13',
  '14',
  '15',
  '16',
  '17',
  '18',
  '19',
  '20',
  '31',
  '32',
  '33',
  '34',
  '35',
  '36',
  '41',
]);

/** Bracketed element string `(01)…(10)…` → the raw string a scanner transmits (no brackets, GS after variable-length AIs). */
export function gs1ElementString(bracketed: string): string {
  const elements = [...bracketed.matchAll(/\((\d{2,4})\)([^(]*)/g)];
  return elements
    .map(([, ai = '', value = ''], index) => {
      const last = index === elements.length - 1;
      return ai + value + (last || FIXED_LENGTH_PREFIXES.has(ai.slice(0, 2)) ? '' : GS);
    })
    .join('');
}

export interface Bounds {
  left: number;
  top: number;
  /** Exclusive. */
  right: number;
  /** Exclusive. */
  bottom: number;
}

/** Bounding box of the dark (bar/module) pixels. */
export function darkBounds(raster: Raster): Bounds {
  let left = raster.width;
  let top = raster.height;
  let right = 0;
  let bottom = 0;
  for (let y = 0; y < raster.height; y += 1) {
    for (let x = 0; x < raster.width; x += 1) {
      if ((raster.luminance[y * raster.width + x] ?? 255) < 128) {
        left = Math.min(left, x);
        top = Math.min(top, y);
        right = Math.max(right, x + 1);
        bottom = Math.max(bottom, y + 1);
      }
    }
  }
  return { left, top, right, bottom };
}
