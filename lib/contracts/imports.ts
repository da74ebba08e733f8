import * as z from 'zod';
import { JOB_STATUSES } from '../domain/imports/job.ts';
import { DUPLICATE_STRATEGIES } from '../domain/imports/types.ts';
import { idParam } from './primitives.ts';

/**
 * Schemas shared by the import operations; each operation's own contract is in
 * lib/contracts/imports/<operation>.ts, so a function bundles only its route's schemas.
 */

export const importJobPath = z.strictObject({ id: idParam });

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

