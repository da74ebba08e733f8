import * as z from '../zod.ts';
import { bomPath } from '../boms.ts';
import { defineOperation } from '../operation.ts';
import { idParam } from '../primitives.ts';

/** GET /v1/boms/{id}/revisions/compare (docs/boms.md "Compare"). */
export const compareBomRevisionsContract = defineOperation({
  operationId: 'compareBomRevisions',
  request: { path: bomPath, query: z.strictObject({ fromRevisionId: idParam, toRevisionId: idParam }) },
});
