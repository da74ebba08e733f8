import { chainDependencies } from '../../../lib/composition.ts';
import { renderBarcode } from '../../../lib/domain/labels/render-barcode.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { svgImageResult } from '../../../lib/http/image-response.ts';
import { routeById } from '../../../lib/routes.ts';

export const handler = createHttpHandler(routeById('renderBarcode'), chainDependencies, async ({ query, event }) =>
  svgImageResult(renderBarcode(query), event),
);
