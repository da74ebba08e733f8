import * as z from '../../platform/contracts/zod.ts';
import { ATTACHMENT_TARGET_KINDS, FILE_KINDS } from '../domain/attachment.ts';

/** The success bodies of the attachment operations (docs/attachments.md), for OpenAPI and the tests; no function imports them. */

export const attachmentSchema = z
  .object({
    id: z.string(),
    targetKind: z.enum(ATTACHMENT_TARGET_KINDS),
    targetId: z.string(),
    kind: z.enum(['file', 'link']),
    fileKind: z.enum(FILE_KINDS),
    title: z.string(),
    fileName: z.nullable(z.string()),
    contentType: z.nullable(z.string()).check(z.meta({ description: 'Sniffed from the bytes, never taken from the client.' })),
    sizeBytes: z.nullable(z.number().check(z.int())),
    sha256: z.nullable(z.string()),
    pageCount: z.nullable(z.number().check(z.int())),
    url: z.nullable(z.string()).check(z.meta({ description: 'Links only; never fetched by the server.' })),
    createdAt: z.string(),
    createdBy: z.string().check(z.meta({ description: 'The API key id that attached it.' })),
  })
  .check(z.meta({ id: 'Attachment' }));

export const attachmentsPageSchema = z
  .object({ data: z.array(attachmentSchema), page: z.object({ nextCursor: z.nullable(z.string()) }) })
  .check(z.meta({ id: 'AttachmentsPage' }));

export const downloadUrlSchema = z
  .object({ url: z.string(), expiresAt: z.string(), fileName: z.string(), contentType: z.string(), sizeBytes: z.number().check(z.int()) })
  .check(z.meta({ id: 'AttachmentDownloadUrl' }));
