/**
 * What a label request may ask for (docs/api-guide.md "Labels"): the barcode formats and the
 * limits on payload and size. The renderer decides by these; the query schema
 * (lib/labels/contracts.ts) derives its checks from them.
 */

/** Barcode formats; `qr` is the default. */
export const BARCODE_FORMATS = ['qr', 'datamatrix', 'code128', 'gs1-128', 'ean13', 'upca', 'code39', 'pdf417', 'aztec', 'gs1-datamatrix'] as const;

export type BarcodeFormat = (typeof BARCODE_FORMATS)[number];

export const PAYLOAD_MAX_LENGTH = 1024;
export const SIZE_MM_MIN = 1;
export const SIZE_MM_MAX = 1000;
