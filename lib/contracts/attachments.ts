import * as z from 'zod';
import { ATTACHMENT_TARGET_KINDS, FILE_KINDS } from '../domain/attachments/attachment.ts';
import { LINK_URL_MAX_LENGTH } from '../domain/attachments/link-url.ts';
import { uploadedFileSchema } from './imports/submit-import-job.ts';
import { idParam } from './primitives.ts';

/**
 * Request schemas shared by the attachment operations (docs/attachments.md); each operation's own
 * contract is in lib/contracts/attachments/<operation>.ts, the response bodies in
 * lib/contracts/attachments/responses.ts.
 */

export const attachmentPath = z.strictObject({ id: idParam });

const targetKind = z.enum(ATTACHMENT_TARGET_KINDS, { message: `Must be one of: ${ATTACHMENT_TARGET_KINDS.join(', ')}.` });
const fileKind = z.enum(FILE_KINDS, { message: `Must be one of: ${FILE_KINDS.join(', ')}.` });

/** An int32 page count sent as an integer, or as a decimal with only zeros after the point (`12.0`). */
const pageCount = z
  .string()
  .regex(/^(0|[1-9][0-9]*)(\.0+)?$/, { message: 'Must be a whole number of pages, e.g. 12 or 12.0.' })
  .transform(Number)
  .refine((value) => value <= 2_147_483_647, { message: 'Must be a 32-bit integer.' });

/** The upload form; its field names are capitalized as the API specifies them. */
export const uploadAttachmentForm = z.strictObject({
  TargetKind: targetKind,
  TargetId: idParam,
  File: uploadedFileSchema.meta({ type: 'string', format: 'binary', description: 'The file, at most 4 MiB; its type is sniffed from its bytes.' }),
  FileKind: fileKind.optional(),
  PageCount: pageCount.optional(),
});

export const createLinkBody = z.strictObject({
  targetKind,
  targetId: idParam,
  url: z.string().min(1).max(LINK_URL_MAX_LENGTH),
  title: z.string().min(1).max(200).optional(),
  fileKind: fileKind.optional(),
});

export const listAttachmentsQuery = { targetKind: targetKind.optional(), targetId: idParam.optional() };
