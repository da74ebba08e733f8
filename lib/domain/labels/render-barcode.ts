import type { BarcodeFormat } from '../../contracts/labels.ts';
import { encodeSymbol } from './encode-symbol.ts';
import { toEncodableText } from './payload-rules.ts';
import { composeSvg, layoutSymbol } from './svg-layout.ts';
import { SYMBOLOGIES } from './symbologies.ts';

export interface BarcodeRequest {
  payload: string;
  format: BarcodeFormat;
  widthMm?: number;
  heightMm?: number;
}

/**
 * Renders one barcode as a self-contained SVG document (GET /v1/barcodes, docs/api-guide.md "Labels").
 * Pure and deterministic: the same request always yields byte-identical text. Throws a
 * ValidationError on `payload` when the payload is not valid for the format.
 */
export function renderBarcode(request: BarcodeRequest): string {
  const symbology = SYMBOLOGIES[request.format];
  const encodable = toEncodableText(request.format, request.payload);
  const symbol = encodeSymbol(symbology, encodable);
  const layout = layoutSymbol(symbology, symbol, { widthMm: request.widthMm, heightMm: request.heightMm });
  return composeSvg(symbol, layout);
}
