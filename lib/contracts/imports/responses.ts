import * as z from 'zod';
import { JOB_STATUSES, MAX_STORED_ROW_ERRORS } from '../../domain/imports/job.ts';
import { DUPLICATE_STRATEGIES } from '../../domain/imports/types.ts';

/**
 * The success bodies of the import operations (docs/imports.md), for OpenAPI and the tests
 * (lib/contracts/operations.ts). Apart from the operations' request contracts because responses
 * are not validated at run time: no function needs to bundle them.
 */

export const importJobSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    duplicateStrategy: z.enum(DUPLICATE_STRATEGIES),
    status: z.enum(JOB_STATUSES),
    fileName: z.string(),
    fileSizeBytes: z.number().int(),
    fileSha256: z.string(),
    submittedAt: z.string(),
    startedAt: z.string().nullable(),
    completedAt: z.string().nullable(),
    counts: z.object({
      totalRows: z.number().int(),
      processedRows: z.number().int(),
      created: z.number().int(),
      updated: z.number().int(),
      skipped: z.number().int(),
      failed: z.number().int(),
    }),
    failure: z.object({ code: z.string(), message: z.string() }).nullable(),
    warnings: z.array(z.object({ column: z.string(), code: z.string(), message: z.string() })),
  })
  .meta({ id: 'ImportJob' });

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

export const rowErrorSchema = z
  .object({ rowNumber: z.number().int(), column: z.string().nullable(), value: z.string().nullable(), code: z.string(), message: z.string() })
  .meta({ id: 'ImportRowError' });

export const rowErrorsPageSchema = z
  .object({
    data: z.array(rowErrorSchema),
    page: z.object({ nextCursor: z.string().nullable() }),
    notStoredCount: z
      .number()
      .int()
      .meta({
        description: `Row errors of the job beyond the ${MAX_STORED_ROW_ERRORS.toLocaleString('en-US')} stored per job: their rows are counted in the job's counts.failed, but these errors are not listed. 0 when every error is listed.`,
      }),
  })
  .meta({ id: 'ImportRowErrorsPage' });
