import type { InventoryClient } from '../create-client.ts';
import type { BarcodeFormat } from '../types.ts';
import { unwrap } from '../unwrap.ts';

export interface BarcodeRequest {
  payload: string;
  /** `qr` unless told. */
  format?: BarcodeFormat;
  widthMm?: number;
  heightMm?: number;
  signal?: AbortSignal;
}

/** GET /v1/barcodes: the symbol as an SVG document sized in millimetres (docs/api-guide.md "Labels"). */
export async function renderBarcode(client: InventoryClient, request: BarcodeRequest): Promise<string> {
  const { signal, ...query } = request;
  return unwrap(client.api.GET('/v1/barcodes', { params: { query }, parseAs: 'text', signal }));
}
