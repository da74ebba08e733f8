import * as z from 'zod';
import { DUPLICATE_STRATEGIES } from '../../domain/imports/types.ts';
import type { UploadedFile } from '../../http/multipart.ts';
import { defineOperation } from '../operation.ts';

/** POST /v1/imports/jobs (docs/imports.md); the form's limits are the route's `requestBody`. */

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

export const submitImportJobContract = defineOperation({
  operationId: 'submitImportJob',
  request: { body: submitImportJobForm },
});
