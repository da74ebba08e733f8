import { attachmentPath } from './attachments.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** GET /v1/attachments/{id}/download-url (docs/attachments.md "Downloads"). */
export const getAttachmentDownloadUrlContract = defineOperation({ operationId: 'getAttachmentDownloadUrl', request: { path: attachmentPath } });
