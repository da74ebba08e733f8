import * as z from '../../platform/contracts/zod.ts';
import { bomPath } from './boms.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, idParam, limitParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/boms/{id}/builds (docs/boms.md "Build provenance"). */
export const listBomBuildsContract = defineOperation({
  operationId: 'listBomBuilds',
  request: { path: bomPath, query: z.strictObject({ sourceStockRecordId: idParam, limit: limitParam, cursor: cursorParam }) },
});
