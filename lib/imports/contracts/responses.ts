import * as z from '../../platform/contracts/zod.ts';
import { JOB_STATUSES, MAX_STORED_ROW_ERRORS } from '../domain/job.ts';
import { DUPLICATE_STRATEGIES } from '../domain/types.ts';

/**
 * The success bodies of the import operations (docs/imports.md), for OpenAPI and the tests
 * (lib/app/openapi/areas/imports.ts). Apart from the operations' request contracts because responses
 * are not validated at run time: no function needs to bundle them.
 */

export const importJobSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    duplicateStrategy: z.enum(DUPLICATE_STRATEGIES),
    dryRun: z.boolean().check(z.meta({ description: 'Whether the job is a dry run: every row decided, nothing written but the job and its row errors.' })),
    status: z.enum(JOB_STATUSES),
    fileName: z.string(),
    fileSizeBytes: z.number().check(z.int()),
    fileSha256: z.string(),
    submittedAt: z.string(),
    startedAt: z.nullable(z.string()),
    completedAt: z.nullable(z.string()),
    counts: z.object({
      totalRows: z.number().check(z.int()),
      processedRows: z.number().check(z.int()),
      created: z.number().check(z.int()),
      updated: z.number().check(z.int()),
      skipped: z.number().check(z.int()),
      failed: z.number().check(z.int()),
    }),
    failure: z.nullable(z.object({ code: z.string(), message: z.string() })),
    warnings: z.array(z.object({ column: z.string(), code: z.string(), message: z.string() })),
  })
  .check(z.meta({ id: 'ImportJob' }));

const columnSchema = z.object({
  name: z.string(),
  required: z.boolean(),
  type: z.string(),
  description: z.string(),
  values: z.optional(z.array(z.string())),
});

export const importKindSchema = z
  .object({
    kind: z.string(),
    title: z.string(),
    description: z.string(),
    columns: z.array(columnSchema),
    naturalKey: z.array(z.string()),
    duplicateStrategies: z.array(z.enum(DUPLICATE_STRATEGIES)),
    maxFileBytes: z.number().check(z.int()),
    maxRows: z.number().check(z.int()),
  })
  .check(z.meta({ id: 'ImportKind' }));

export const importKindsPageSchema = z
  .object({ data: z.array(importKindSchema), page: z.object({ nextCursor: z.nullable(z.string()) }) })
  .check(z.meta({ id: 'ImportKindsPage' }));

export const rowErrorSchema = z
  .object({ rowNumber: z.number().check(z.int()), column: z.nullable(z.string()), value: z.nullable(z.string()), code: z.string(), message: z.string() })
  .check(z.meta({ id: 'ImportRowError' }));

export const rowErrorsPageSchema = z
  .object({
    data: z.array(rowErrorSchema),
    page: z.object({ nextCursor: z.nullable(z.string()) }),
    notStoredCount: z
      .number()
      .check(z.int())
      .check(
        z.meta({
          description: `Row errors of the job beyond the ${MAX_STORED_ROW_ERRORS.toLocaleString('en-US')} stored per job: their rows are counted in the job's counts.failed, but these errors are not listed. 0 when every error is listed.`,
        }),
      ),
  })
  .check(z.meta({ id: 'ImportRowErrorsPage' }));
