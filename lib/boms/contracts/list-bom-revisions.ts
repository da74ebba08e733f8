import * as z from '../../platform/contracts/zod.ts';
import { bomPath } from './boms.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, limitParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/boms/{id}/revisions (docs/boms.md "Revisions"). */
export const listBomRevisionsContract = defineOperation({
  operationId: 'listBomRevisions',
  request: { path: bomPath, query: z.strictObject({ limit: limitParam, cursor: cursorParam }) },
});
