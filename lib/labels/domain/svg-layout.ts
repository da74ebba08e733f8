import type { EncodedSymbol } from './encode-symbol.ts';
import { LINEAR_BAR_HEIGHT_RATIO, LINEAR_MIN_BAR_HEIGHT_MM, keepsAspect, type Symbology } from './symbologies.ts';

export interface SizeRequest {
  widthMm?: number;
  heightMm?: number;
}

/** Where the symbol goes on the output canvas; all lengths in millimetres. */
export interface Layout {
  widthMm: number;
  heightMm: number;
  /** Top-left corner of the bars/modules (inside the quiet zone). */
  offsetXMm: number;
  offsetYMm: number;
  /** Millimetres per bwip-js unit; equal for symbols that must not be distorted. */
  scaleX: number;
  scaleY: number;
}

/**
 * Sizing rules (docs/api-guide.md "Labels"):
 * - neither size: the natural size (module sizes in symbologies.ts) including the quiet zone;
 * - one size: scaled uniformly to it, keeping the natural aspect ratio;
 * - both sizes, 2D (matrix, PDF417): never distorted; the symbol with its quiet zone is scaled to
 *   fit inside the box and centred, the background filling the rest;
 * - both sizes, linear: bars and quiet zone fill the width (every bar scaled by the same factor)
 *   and the bars are stretched to fill the height.
 */
export function layoutSymbol(symbology: Symbology, symbol: Pick<EncodedSymbol, 'widthUnits' | 'heightUnits'>, size: SizeRequest): Layout {
  const { quietZone: qz, unitsPerModule } = symbology;
  const naturalScaleX = symbology.moduleMm / unitsPerModule;
  let naturalScaleY = naturalScaleX;
  if (symbology.kind === 'linear') {
    const barHeightMm = symbology.barHeightMm ?? Math.max(LINEAR_MIN_BAR_HEIGHT_MM, LINEAR_BAR_HEIGHT_RATIO * symbol.widthUnits * naturalScaleX);
    naturalScaleY = barHeightMm / symbol.heightUnits;
  }
  const totalUnitsX = symbol.widthUnits + (qz.left + qz.right) * unitsPerModule;
  const totalUnitsY = symbol.heightUnits + (qz.top + qz.bottom) * unitsPerModule;
  const naturalWidthMm = totalUnitsX * naturalScaleX;
  const naturalHeightMm = totalUnitsY * naturalScaleY;

  let factorX: number;
  let factorY: number;
  let widthMm: number;
  let heightMm: number;
  if (size.widthMm !== undefined && size.heightMm !== undefined) {
    widthMm = size.widthMm;
    heightMm = size.heightMm;
    factorX = widthMm / naturalWidthMm;
    factorY = heightMm / naturalHeightMm;
    if (keepsAspect(symbology)) {
      factorX = Math.min(factorX, factorY);
      factorY = factorX;
    }
  } else {
    const factor = size.widthMm !== undefined ? size.widthMm / naturalWidthMm : size.heightMm !== undefined ? size.heightMm / naturalHeightMm : 1;
    factorX = factor;
    factorY = factor;
    widthMm = size.widthMm ?? naturalWidthMm * factor;
    heightMm = size.heightMm ?? naturalHeightMm * factor;
  }

  const scaleX = naturalScaleX * factorX;
  const scaleY = naturalScaleY * factorY;
  // Centre whatever part of the box the (undistorted) symbol does not fill.
  const slackX = widthMm - totalUnitsX * scaleX;
  const slackY = heightMm - totalUnitsY * scaleY;
  return {
    widthMm,
    heightMm,
    offsetXMm: slackX / 2 + qz.left * unitsPerModule * scaleX,
    offsetYMm: slackY / 2 + qz.top * unitsPerModule * scaleY,
    scaleX,
    scaleY,
  };
}

/** Lengths in mm with 0.1 µm resolution: deterministic, never in exponent notation. */
function length(value: number): string {
  const text = value.toFixed(4).replace(/\.?0+$/, '');
  return text === '-0' ? '0' : text;
}

/** Scale factors with 8 significant digits (they are ≥ 1e-5, so no exponent notation). */
function factor(value: number): string {
  return String(Number(value.toPrecision(8)));
}

/**
 * The SVG document: root sized in mm with a matching mm viewBox, a white background over the
 * whole box (quiet zone included), then the black bwip-js paths placed by one transform. No text,
 * fonts, scripts or external references.
 */
export function composeSvg(symbol: Pick<EncodedSymbol, 'body'>, layout: Layout): string {
  const width = length(layout.widthMm);
  const height = length(layout.heightMm);
  const scale = layout.scaleX === layout.scaleY ? factor(layout.scaleX) : `${factor(layout.scaleX)} ${factor(layout.scaleY)}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="${width}mm" height="${height}mm" viewBox="0 0 ${width} ${height}" shape-rendering="crispEdges">\n` +
    `<rect x="0" y="0" width="${width}" height="${height}" fill="#FFFFFF"/>\n` +
    `<g transform="translate(${length(layout.offsetXMm)} ${length(layout.offsetYMm)}) scale(${scale})">\n` +
    `${symbol.body}\n` +
    `</g>\n` +
    `</svg>\n`
  );
}
