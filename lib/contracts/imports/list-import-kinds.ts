import * as z from '../zod.ts';
import { defineOperation } from '../operation.ts';
import { cursorParam, limitParam } from '../primitives.ts';

/** GET /v1/imports/kinds (docs/imports.md). */

export const listImportKindsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

export const listImportKindsContract = defineOperation({
  operationId: 'listImportKinds',
  request: { query: listImportKindsQuery },
});
