import { chainDependencies } from '../../../lib/composition.ts';
import { renderBarcodeContract } from '../../../lib/contracts/labels.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { BARCODE_RENDERER_VERSION, renderBarcode } from '../../../lib/domain/labels/render-barcode.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { svgImageResult } from '../../../lib/http/image-response.ts';
import { renderBarcodeRoute } from '../../../lib/routes/labels.ts';

export const handler = createOperationHandler(bindOperation(renderBarcodeRoute, renderBarcodeContract), chainDependencies, async ({ query, event }) =>
  svgImageResult(event, { query, renderer: BARCODE_RENDERER_VERSION }, () => renderBarcode(query)),
);
