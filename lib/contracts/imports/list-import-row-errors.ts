import * as z from 'zod';
import { importJobPath } from '../imports.ts';
import { defineOperation } from '../operation.ts';
import { cursorParam, limitParam } from '../primitives.ts';

/** GET /v1/imports/jobs/{id}/errors (docs/imports.md). */

export const listRowErrorsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

export const rowErrorSchema = z
  .object({ rowNumber: z.number().int(), column: z.string().nullable(), value: z.string().nullable(), code: z.string(), message: z.string() })
  .meta({ id: 'ImportRowError' });

export const rowErrorsPageSchema = z
  .object({ data: z.array(rowErrorSchema), page: z.object({ nextCursor: z.string().nullable() }) })
  .meta({ id: 'ImportRowErrorsPage' });

export const listImportRowErrorsContract = defineOperation({
  operationId: 'listImportRowErrors',
  request: { path: importJobPath, query: listRowErrorsQuery },
  response: rowErrorsPageSchema,
});
