import * as z from 'zod';
import { DUPLICATE_STRATEGIES } from '../../domain/imports/types.ts';
import { defineOperation } from '../operation.ts';
import { cursorParam, limitParam } from '../primitives.ts';

/** GET /v1/imports/kinds (docs/imports.md). */

export const listImportKindsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

const columnSchema = z.object({
  name: z.string(),
  required: z.boolean(),
  type: z.string(),
  description: z.string(),
  values: z.array(z.string()).optional(),
});

export const importKindSchema = z
  .object({
    kind: z.string(),
    title: z.string(),
    description: z.string(),
    columns: z.array(columnSchema),
    naturalKey: z.array(z.string()),
    duplicateStrategies: z.array(z.enum(DUPLICATE_STRATEGIES)),
    maxFileBytes: z.number().int(),
    maxRows: z.number().int(),
  })
  .meta({ id: 'ImportKind' });

export const importKindsPageSchema = z
  .object({ data: z.array(importKindSchema), page: z.object({ nextCursor: z.string().nullable() }) })
  .meta({ id: 'ImportKindsPage' });


export const listImportKindsContract = defineOperation({
  operationId: 'listImportKinds',
  request: { query: listImportKindsQuery },
  response: importKindsPageSchema,
});
