import { chainDependencies } from '../../../lib/app/composition.ts';
import { renderBarcodeContract } from '../../../lib/labels/contracts.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { BARCODE_RENDERER_VERSION, renderBarcode } from '../../../lib/labels/domain/render-barcode.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { svgImageResult } from '../../../lib/platform/http/image-response.ts';
import { renderBarcodeRoute } from '../../../lib/labels/routes.ts';

export const handler = createOperationHandler(bindOperation(renderBarcodeRoute, renderBarcodeContract), chainDependencies, async ({ query, event }) =>
  svgImageResult(event, { query, renderer: BARCODE_RENDERER_VERSION }, () => renderBarcode(query)),
);
