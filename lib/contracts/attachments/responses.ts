import * as z from 'zod';
import { ATTACHMENT_TARGET_KINDS, FILE_KINDS } from '../../domain/attachments/attachment.ts';

/** The success bodies of the attachment operations (docs/attachments.md), for OpenAPI and the tests; no function imports them. */

export const attachmentSchema = z
  .object({
    id: z.string(),
    targetKind: z.enum(ATTACHMENT_TARGET_KINDS),
    targetId: z.string(),
    kind: z.enum(['file', 'link']),
    fileKind: z.enum(FILE_KINDS),
    title: z.string(),
    fileName: z.string().nullable(),
    contentType: z.string().nullable().meta({ description: 'Sniffed from the bytes, never taken from the client.' }),
    sizeBytes: z.number().int().nullable(),
    sha256: z.string().nullable(),
    pageCount: z.number().int().nullable(),
    url: z.string().nullable().meta({ description: 'Links only; never fetched by the server.' }),
    createdAt: z.string(),
    createdBy: z.string().meta({ description: 'The API key id that attached it.' }),
  })
  .meta({ id: 'Attachment' });

export const attachmentsPageSchema = z.object({ data: z.array(attachmentSchema), page: z.object({ nextCursor: z.string().nullable() }) }).meta({ id: 'AttachmentsPage' });

export const downloadUrlSchema = z
  .object({ url: z.string(), expiresAt: z.string(), fileName: z.string(), contentType: z.string(), sizeBytes: z.number().int() })
  .meta({ id: 'AttachmentDownloadUrl' });
