import * as z from '../../platform/contracts/zod.ts';
import { bomPath, updateBomBody } from './boms.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** PUT /v1/boms/{id} (docs/boms.md "Revisions"). */
export const updateBomContract = defineOperation({
  operationId: 'updateBom',
  request: {
    path: bomPath,
    headers: z.object({
      'If-Match': z
        .optional(z.string().check(z.minLength(1), z.maxLength(1000)))
        .check(z.meta({ description: 'The `ETag` of the BOM as read; a stale one is a 409 `customer-api.boms.revision-conflict`.' })),
    }),
    body: updateBomBody,
  },
});
