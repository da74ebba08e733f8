import * as z from '../zod.ts';
import { BOM_STATUSES } from '../../domain/boms/bom.ts';
import { defineOperation } from '../operation.ts';
import { booleanString, cursorParam, idParam, limitParam } from '../primitives.ts';

/** GET /v1/boms (docs/boms.md "Listing"). */
export const listBomsContract = defineOperation({
  operationId: 'listBoms',
  request: {
    query: z.strictObject({
      q: z.optional(z.string().check(z.minLength(1), z.maxLength(200))).check(z.meta({ description: 'Case-insensitive substring of the code or the name.' })),
      status: z.optional(z.enum(BOM_STATUSES)),
      targetItemId: z.optional(idParam),
      includeArchived: z.optional(booleanString),
      limit: limitParam,
      cursor: cursorParam,
    }),
  },
});
