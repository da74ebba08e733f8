import * as z from '../zod.ts';
import { importJobPath } from '../imports.ts';
import { defineOperation } from '../operation.ts';
import { cursorParam, limitParam } from '../primitives.ts';

/** GET /v1/imports/jobs/{id}/errors (docs/imports.md). */

export const listRowErrorsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

export const listImportRowErrorsContract = defineOperation({
  operationId: 'listImportRowErrors',
  request: { path: importJobPath, query: listRowErrorsQuery },
});
