import type { BarcodeFormat } from './formats.ts';

/**
 * How each barcode format (docs/api-guide.md "Labels") maps onto bwip-js, and its geometry.
 *
 * Sizes (used when the caller gives neither `widthMm` nor `heightMm`):
 * - linear (code128, gs1-128, ean13, upca, code39): X-dimension 0.33 mm (GS1 nominal for EAN/UPC at
 *   100 % magnification). Bar height 22.85 mm for EAN-13/UPC-A (GS1 nominal), otherwise 15 % of the
 *   bar pattern's length but at least 15 mm.
 * - matrix (qr, datamatrix, gs1-datamatrix, aztec): 0.5 mm square modules.
 * - stacked (pdf417): 0.33 mm module width; rows are 3 modules tall (bwip-js default, the ISO 15438 minimum).
 *
 * Quiet zones, in modules, on every side the standard asks for, never less than its minimum:
 * - linear: 11 left and right (covers EAN-13 11/7, UPC-A 9/9, Code 128, GS1-128 and Code 39 10/10);
 *   none above or below (no standard asks for one).
 * - QR 4; PDF417 2; Data Matrix and GS1 DataMatrix 1 (ISO 16022 minimum); Aztec 1 (ISO 24778 needs
 *   none; one module keeps the symbol off the label edge).
 * bwip-js draws EAN-13/UPC-A one blank module wider than the 95 bar modules and keeps Code 39's
 * trailing inter-character gap; both only widen the right quiet zone by one module.
 */

export type SymbolKind = 'linear' | 'matrix' | 'stacked';

export interface QuietZone {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

export interface Symbology {
  /** bwip-js encoder id. */
  bcid: string;
  kind: SymbolKind;
  /** Human name for error messages. */
  label: string;
  /** Size of one module in bwip-js SVG units at `scale: 1` (matrix codes draw 2 units per module). */
  unitsPerModule: number;
  /** Natural module (X-dimension) size in millimetres. */
  moduleMm: number;
  quietZone: QuietZone;
  /** Natural bar height in millimetres for linear symbols; undefined means "15 % of length, ≥ 15 mm". */
  barHeightMm?: number;
}

export const LINEAR_MODULE_MM = 0.33;
export const MATRIX_MODULE_MM = 0.5;
export const STACKED_MODULE_MM = 0.33;
export const LINEAR_MIN_BAR_HEIGHT_MM = 15;
export const LINEAR_BAR_HEIGHT_RATIO = 0.15;
export const EAN_UPC_BAR_HEIGHT_MM = 22.85;

const LINEAR_QUIET_ZONE: QuietZone = { left: 11, right: 11, top: 0, bottom: 0 };

function around(modules: number): QuietZone {
  return { left: modules, right: modules, top: modules, bottom: modules };
}

function linear(bcid: string, label: string, barHeightMm?: number): Symbology {
  return {
    bcid,
    kind: 'linear',
    label,
    unitsPerModule: 1,
    moduleMm: LINEAR_MODULE_MM,
    quietZone: LINEAR_QUIET_ZONE,
    ...(barHeightMm === undefined ? {} : { barHeightMm }),
  };
}

function matrix(bcid: string, label: string, quietModules: number): Symbology {
  return { bcid, kind: 'matrix', label, unitsPerModule: 2, moduleMm: MATRIX_MODULE_MM, quietZone: around(quietModules) };
}

export const SYMBOLOGIES: Readonly<Record<BarcodeFormat, Symbology>> = {
  qr: matrix('qrcode', 'QR Code', 4),
  datamatrix: matrix('datamatrix', 'Data Matrix', 1),
  'gs1-datamatrix': matrix('gs1datamatrix', 'GS1 DataMatrix', 1),
  aztec: matrix('azteccode', 'Aztec Code', 1),
  pdf417: {
    bcid: 'pdf417',
    kind: 'stacked',
    label: 'PDF417',
    unitsPerModule: 1,
    moduleMm: STACKED_MODULE_MM,
    quietZone: around(2),
  },
  code128: linear('code128', 'Code 128'),
  'gs1-128': linear('gs1-128', 'GS1-128'),
  ean13: linear('ean13', 'EAN-13', EAN_UPC_BAR_HEIGHT_MM),
  upca: linear('upca', 'UPC-A', EAN_UPC_BAR_HEIGHT_MM),
  code39: linear('code39', 'Code 39'),
};

/** True for symbols that must never be distorted (their modules stay square / at their natural aspect). */
export function keepsAspect(symbology: Symbology): boolean {
  return symbology.kind !== 'linear';
}
