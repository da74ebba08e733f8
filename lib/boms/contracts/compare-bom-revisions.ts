import * as z from '../../platform/contracts/zod.ts';
import { bomPath } from './boms.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { idParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/boms/{id}/revisions/compare (docs/boms.md "Compare"). */
export const compareBomRevisionsContract = defineOperation({
  operationId: 'compareBomRevisions',
  request: { path: bomPath, query: z.strictObject({ fromRevisionId: idParam, toRevisionId: idParam }) },
});
