import type { LABEL_ROUTES } from '../../../labels/routes.ts';
import { renderBarcodeContract } from '../../../labels/contracts.ts';
import type { OpenApiArea } from './types.ts';

/** The Labels area in the OpenAPI document. */
export const labelsOpenApi = {
  tag: { name: 'Labels', description: 'Render barcodes as SVG images.' },
  operations: {
    // The body is the SVG image.
    renderBarcode: { contract: renderBarcodeContract, response: undefined },
  },
  problemCodes: {},
} satisfies OpenApiArea<typeof LABEL_ROUTES>;
