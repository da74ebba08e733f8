import type { BarcodeFormat } from './formats.ts';
import { encodeSymbol } from './encode-symbol.ts';
import { loadEncoder } from './encoder-modules.ts';
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
 * What, with the request, decides the rendered bytes: the bwip-js release (its encoders) and our
 * layout's revision. Bump the layout part whenever svg-layout.ts or the symbologies' options change
 * the output; a unit test keeps the bwip-js part equal to the installed package's version. The
 * image's ETag is derived from both, so cached images are revalidated after either changes.
 */
export const BARCODE_RENDERER_VERSION = { bwipJs: '4.11.4', layout: 1 } as const;

/**
 * Renders one barcode as a self-contained SVG document (GET /v1/barcodes, docs/api-guide.md "Labels").
 * Deterministic: the same request always yields byte-identical text. Rejects with a
 * ValidationError on `payload` when the payload is not valid for the format, checked before the
 * format's encoder is loaded (asynchronous only for that load: lib/labels/domain/encoder-modules.ts).
 */
export async function renderBarcode(request: BarcodeRequest): Promise<string> {
  const symbology = SYMBOLOGIES[request.format];
  const encodable = toEncodableText(request.format, request.payload);
  const encode = await loadEncoder(request.format);
  const symbol = encodeSymbol(encode, symbology, encodable);
  const layout = layoutSymbol(symbology, symbol, { widthMm: request.widthMm, heightMm: request.heightMm });
  return composeSvg(symbol, layout);
}
