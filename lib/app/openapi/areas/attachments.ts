import type { ATTACHMENT_ROUTES } from '../../../attachments/routes.ts';
import { createAttachmentLinkContract } from '../../../attachments/contracts/create-attachment-link.ts';
import { deleteAttachmentContract } from '../../../attachments/contracts/delete-attachment.ts';
import { getAttachmentDownloadUrlContract } from '../../../attachments/contracts/get-attachment-download-url.ts';
import { listAttachmentsContract } from '../../../attachments/contracts/list-attachments.ts';
import { attachmentSchema, attachmentsPageSchema, downloadUrlSchema } from '../../../attachments/contracts/responses.ts';
import { uploadAttachmentContract } from '../../../attachments/contracts/upload-attachment.ts';
import type { OpenApiArea } from './types.ts';

/** The Attachments area in the OpenAPI document. */
export const attachmentsOpenApi = {
  tag: { name: 'Attachments', description: 'List, upload, link and delete attachments, and obtain download URLs.' },
  operations: {
    listAttachments: { contract: listAttachmentsContract, response: attachmentsPageSchema },
    uploadAttachment: { contract: uploadAttachmentContract, response: attachmentSchema },
    getAttachmentDownloadUrl: { contract: getAttachmentDownloadUrlContract, response: downloadUrlSchema },
    // 204: no body.
    deleteAttachment: { contract: deleteAttachmentContract, response: undefined },
    createAttachmentLink: { contract: createAttachmentLinkContract, response: attachmentSchema },
  },
  problemCodes: {
    uploadAttachment: { 400: ['customer-api.attachments.unknown-target'] },
    createAttachmentLink: { 400: ['customer-api.attachments.unknown-target'] },
    getAttachmentDownloadUrl: { 409: ['customer-api.attachments.not-downloadable'] },
  },
} satisfies OpenApiArea<typeof ATTACHMENT_ROUTES>;
