import * as z from '../../platform/contracts/zod.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, limitParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/imports/kinds (docs/imports.md). */

export const listImportKindsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

export const listImportKindsContract = defineOperation({
  operationId: 'listImportKinds',
  request: { query: listImportKindsQuery },
});
