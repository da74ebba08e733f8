import { attachmentPath } from './attachments.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** DELETE /v1/attachments/{id} (docs/attachments.md "Deleting"). */
export const deleteAttachmentContract = defineOperation({ operationId: 'deleteAttachment', request: { path: attachmentPath } });
