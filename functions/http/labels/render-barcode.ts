import { chainDependencies } from '../../../lib/composition.ts';
import { renderBarcodeContract } from '../../../lib/contracts/labels.ts';
import { BARCODE_RENDERER_VERSION, renderBarcode } from '../../../lib/domain/labels/render-barcode.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { svgImageResult } from '../../../lib/http/image-response.ts';

export const handler = createHttpHandler(renderBarcodeContract, chainDependencies, async ({ query, event }) =>
  svgImageResult(event, { query, renderer: BARCODE_RENDERER_VERSION }, () => renderBarcode(query)),
);
