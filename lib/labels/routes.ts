import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Labels routes (barcode images). A handler imports its own route from this file, never
 * lib/app/routes.ts, so its bundle carries one route, not the table.
 */

export const renderBarcodeRoute = {
  operationId: 'renderBarcode',
  method: 'GET',
  path: '/v1/barcodes',
  scope: 'labels:read',
  submission: false,
  handler: 'functions/http/labels/render-barcode.ts',
  summary: 'Render a barcode as an SVG image',
  tag: 'Labels',
  success: {
    status: 200,
    description: 'The barcode as SVG, sized in millimetres, quiet zone included.',
    mediaType: 'image/svg+xml',
    headers: {
      ETag: 'Strong validator of the image bytes; send it back as If-None-Match to get 304.',
      'Cache-Control': 'Always `private, max-age=86400`: the image for the same query never changes.',
      'Content-Security-Policy': "Always `default-src 'none'`.",
    },
  },
  errorStatuses: [400],
  access: { tables: {} },
  problemMediaTypes: ['application/problem+json', 'image/svg+xml'],
} as const satisfies RouteDefinition;

/** The area's routes in table order; lib/app/routes.ts registers them. */
export const LABEL_ROUTES = [renderBarcodeRoute] as const satisfies readonly RouteDefinition[];
