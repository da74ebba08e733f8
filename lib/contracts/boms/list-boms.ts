import * as z from 'zod';
import { BOM_STATUSES } from '../../domain/boms/bom.ts';
import { defineOperation } from '../operation.ts';
import { booleanString, cursorParam, idParam, limitParam } from '../primitives.ts';

/** GET /v1/boms (docs/boms.md "Listing"). */
export const listBomsContract = defineOperation({
  operationId: 'listBoms',
  request: {
    query: z.strictObject({
      q: z.string().min(1).max(200).optional().meta({ description: 'Case-insensitive substring of the code or the name.' }),
      status: z.enum(BOM_STATUSES).optional(),
      targetItemId: idParam.optional(),
      includeArchived: booleanString.optional(),
      limit: limitParam,
      cursor: cursorParam,
    }),
  },
});
