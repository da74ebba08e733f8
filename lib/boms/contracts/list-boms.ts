import * as z from '../../platform/contracts/zod.ts';
import { BOM_STATUSES } from '../domain/bom.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { booleanString, cursorParam, idParam, limitParam } from '../../platform/contracts/primitives.ts';

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
