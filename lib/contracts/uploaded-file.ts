import type { UploadedFile } from '../http/multipart.ts';
import * as z from './zod.ts';

/**
 * A file part of a multipart/form-data body (lib/http/multipart.ts), for the forms that take one;
 * each form documents what the file must be (`z.meta`). In a module of its own so that the
 * attachment upload does not bundle the import job's contract.
 */
export const uploadedFileSchema = /* @__PURE__ */ (() =>
  z.custom<UploadedFile>((value) => typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).content), {
    message: 'Must be a file part.',
  }))();
