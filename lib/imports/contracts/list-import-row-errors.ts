import * as z from '../../platform/contracts/zod.ts';
import { importJobPath } from './imports.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, limitParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/imports/jobs/{id}/errors (docs/imports.md). */

export const listRowErrorsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

export const listImportRowErrorsContract = defineOperation({
  operationId: 'listImportRowErrors',
  request: { path: importJobPath, query: listRowErrorsQuery },
});
