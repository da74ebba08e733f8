import * as z from '../../platform/contracts/zod.ts';
import { ATTACHMENT_TARGET_KINDS, FILE_KINDS } from '../domain/attachment.ts';
import { LINK_URL_MAX_LENGTH } from '../domain/link-url.ts';
import { idParam } from '../../platform/contracts/primitives.ts';
import { uploadedFileSchema } from '../../platform/contracts/uploaded-file.ts';

/**
 * Request schemas shared by the attachment operations (docs/attachments.md); each operation's own
 * contract is in lib/attachments/contracts/<operation>.ts, the response bodies in
 * lib/attachments/contracts/responses.ts. The form and the link body are built in `@__PURE__`
 * calls so that the other functions do not bundle them (lib/platform/contracts/zod.ts).
 */

export const attachmentPath = z.strictObject({ id: idParam });

const targetKind = z.enum(ATTACHMENT_TARGET_KINDS, { message: `Must be one of: ${ATTACHMENT_TARGET_KINDS.join(', ')}.` });
const fileKind = z.enum(FILE_KINDS, { message: `Must be one of: ${FILE_KINDS.join(', ')}.` });

/** An int32 page count sent as an integer, or as a decimal with only zeros after the point (`12.0`). */
const pageCount = /* @__PURE__ */ (() =>
  z
    .pipe(z.string().check(z.regex(/^(0|[1-9][0-9]*)(\.0+)?$/, { message: 'Must be a whole number of pages, e.g. 12 or 12.0.' })), z.transform(Number))
    .check(z.refine((value: number) => value <= 2_147_483_647, { message: 'Must be a 32-bit integer.' })))();

/** The upload form; its field names are capitalized as the API specifies them. */
export const uploadAttachmentForm = /* @__PURE__ */ (() =>
  z.strictObject({
    TargetKind: targetKind,
    TargetId: idParam,
    File: uploadedFileSchema.check(z.meta({ type: 'string', format: 'binary', description: 'The file, at most 4 MiB; its type is sniffed from its bytes.' })),
    FileKind: z.optional(fileKind),
    PageCount: z.optional(pageCount),
  }))();

export const createLinkBody = /* @__PURE__ */ (() =>
  z.strictObject({
    targetKind,
    targetId: idParam,
    url: z.string().check(z.minLength(1), z.maxLength(LINK_URL_MAX_LENGTH)),
    title: z.optional(z.string().check(z.minLength(1), z.maxLength(200))),
    fileKind: z.optional(fileKind),
  }))();

export const listAttachmentsQuery = { targetKind: z.optional(targetKind), targetId: z.optional(idParam) };
