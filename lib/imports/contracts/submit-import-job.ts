import * as z from '../../platform/contracts/zod.ts';
import { DUPLICATE_STRATEGIES } from '../domain/types.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { uploadedFileSchema } from '../../platform/contracts/uploaded-file.ts';

/** POST /v1/imports/jobs (docs/imports.md); the form's limits are the route's `requestBody`. */

export const submitImportJobForm = z.strictObject({
  kind: z.string({ message: 'Required.' }).check(z.minLength(1), z.maxLength(64)),
  duplicateStrategy: z.enum(DUPLICATE_STRATEGIES, { message: `Must be one of: ${DUPLICATE_STRATEGIES.join(', ')}.` }),
  dryRun: z.optional(
    z
      .enum(['true', 'false'], { message: 'Must be true or false.' })
      .check(z.meta({ description: 'true: decide every row as a real run would and write nothing but the job. Default false.' })),
  ),
  file: uploadedFileSchema.check(z.meta({ type: 'string', format: 'binary', description: 'UTF-8 CSV with a header row.' })),
});

export const submitImportJobContract = defineOperation({
  operationId: 'submitImportJob',
  request: { body: submitImportJobForm },
});
