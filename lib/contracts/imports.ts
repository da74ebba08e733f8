import { z } from 'zod';
import { JOB_STATUSES } from '../domain/imports/job.ts';
import { DUPLICATE_STRATEGIES, MAX_FILE_BYTES } from '../domain/imports/types.ts';
import type { MultipartLimits, UploadedFile } from '../http/multipart.ts';
import { cursorParam, idParam, limitParam } from './primitives.ts';

/** Imports (seed §4 Imports, PRODUCT §2). */

export const uploadedFileSchema = z
  .custom<UploadedFile>((value) => typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).content), {
    message: 'Must be a file part.',
  })
  .meta({ type: 'string', format: 'binary', description: 'UTF-8 CSV with a header row.' });

export const submitImportJobForm = z.strictObject({
  kind: z.string({ message: 'Required.' }).min(1).max(64),
  duplicateStrategy: z.enum(DUPLICATE_STRATEGIES, { message: `Must be one of: ${DUPLICATE_STRATEGIES.join(', ')}.` }),
  file: uploadedFileSchema,
});

/** One file of at most maxFileBytes and a few short fields: anything more is refused early. */
export const SUBMIT_IMPORT_LIMITS: MultipartLimits = { maxFileBytes: MAX_FILE_BYTES, maxFiles: 1, maxFields: 8, maxFieldBytes: 1024 };

export const listImportKindsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });
export const importJobPath = z.strictObject({ id: idParam });
export const listRowErrorsQuery = z.strictObject({ limit: limitParam, cursor: cursorParam });

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

export const rowErrorSchema = z
  .object({ rowNumber: z.number().int(), column: z.string().nullable(), value: z.string().nullable(), code: z.string(), message: z.string() })
  .meta({ id: 'ImportRowError' });

export const rowErrorsPageSchema = z
  .object({ data: z.array(rowErrorSchema), page: z.object({ nextCursor: z.string().nullable() }) })
  .meta({ id: 'ImportRowErrorsPage' });
