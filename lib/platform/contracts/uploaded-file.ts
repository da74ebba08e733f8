import * as z from './zod.ts';

/**
 * A file part: its name and bytes. The part's declared media type is not kept: clients label
 * the same CSV text/csv, application/octet-stream or application/vnd.ms-excel, and a file is
 * judged (and an Idempotency-Key retry compared) by its bytes and name alone. The multipart
 * parser (lib/platform/http/multipart.ts) produces it.
 */
export interface UploadedFile {
  fieldName: string;
  fileName: string;
  content: Buffer;
}

/**
 * A file part of a multipart/form-data body (lib/platform/http/multipart.ts), for the forms that take one;
 * each form documents what the file must be (`z.meta`). In a module of its own so that the
 * attachment upload does not bundle the import job's contract.
 */
export const uploadedFileSchema = /* @__PURE__ */ (() =>
  z.custom<UploadedFile>((value) => typeof value === 'object' && value !== null && Buffer.isBuffer((value as UploadedFile).content), {
    message: 'Must be a file part.',
  }))();
