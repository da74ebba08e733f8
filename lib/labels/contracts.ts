import { BARCODE_FORMATS, PAYLOAD_MAX_LENGTH, SIZE_MM_MAX, SIZE_MM_MIN } from './domain/formats.ts';
import * as z from '../platform/contracts/zod.ts';
import { defineOperation } from '../platform/contracts/operation.ts';
import { doubleString } from '../platform/contracts/primitives.ts';

// The formats and limits are the domain's (lib/labels/domain/formats.ts); this is their query shape.
const sizeMm = z.pipe(
  doubleString,
  z
    .number()
    .check(z.minimum(SIZE_MM_MIN, { message: `Must be at least ${SIZE_MM_MIN}.` }), z.maximum(SIZE_MM_MAX, { message: `Must be at most ${SIZE_MM_MAX}.` })),
);

export const renderBarcodeQuery = z.strictObject({
  payload: z
    .string({ message: 'Required.' })
    .check(
      z.minLength(1, { message: 'Must not be empty.' }),
      z.maxLength(PAYLOAD_MAX_LENGTH, { message: `Must be at most ${PAYLOAD_MAX_LENGTH} characters.` }),
    ),
  format: z._default(z.optional(z.enum(BARCODE_FORMATS, { message: `Must be one of: ${BARCODE_FORMATS.join(', ')}.` })), 'qr'),
  widthMm: z.optional(sizeMm),
  heightMm: z.optional(sizeMm),
});

export type RenderBarcodeQuery = z.output<typeof renderBarcodeQuery>;

/** GET /v1/barcodes: the body is the SVG image, so there is no response schema. */
export const renderBarcodeContract = defineOperation({ operationId: 'renderBarcode', request: { query: renderBarcodeQuery } });
