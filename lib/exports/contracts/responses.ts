import * as z from '../../platform/contracts/zod.ts';
import { EXPORT_FORMATS, EXPORT_STATUSES } from '../domain/job.ts';

/**
 * The success bodies of the export operations (docs/exports.md), for OpenAPI and the tests. No
 * function imports this module: responses are not validated at run time.
 */

export const exportJobSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    format: z.enum(EXPORT_FORMATS),
    filters: z.record(z.string(), z.union([z.string(), z.boolean()])),
    status: z.enum(EXPORT_STATUSES),
    rowCount: z.number().check(z.int()),
    fileSizeBytes: z.nullable(z.number().check(z.int())),
    sha256: z.nullable(z.string()),
    asOfEventId: z.nullable(z.string()),
    submittedAt: z.string(),
    startedAt: z.nullable(z.string()),
    completedAt: z.nullable(z.string()),
    expiresAt: z.nullable(z.string()),
    failure: z.nullable(z.object({ code: z.string(), message: z.string() })),
  })
  .check(z.meta({ id: 'ExportJob' }));

export const exportKindSchema = z
  .object({
    kind: z.string(),
    title: z.string(),
    description: z.string(),
    columns: z.array(z.object({ name: z.string(), type: z.enum(['string', 'number', 'boolean', 'date-time']), description: z.string() })),
    filters: z.array(
      z.object({
        name: z.string(),
        type: z.enum(['string', 'boolean', 'date-time']),
        required: z.boolean(),
        description: z.string(),
        values: z.optional(z.array(z.string()).check(z.describe('The only values the filter takes; absent when any string is accepted.'))),
      }),
    ),
  })
  .check(z.meta({ id: 'ExportKind' }));

export const exportKindsPageSchema = z
  .object({ data: z.array(exportKindSchema), page: z.object({ nextCursor: z.nullable(z.string()) }) })
  .check(z.meta({ id: 'ExportKindsPage' }));

export const exportDownloadUrlSchema = z
  .object({ url: z.string(), expiresAt: z.string(), fileName: z.string(), contentType: z.string(), sizeBytes: z.number().check(z.int()) })
  .check(z.meta({ id: 'ExportDownloadUrl' }));
