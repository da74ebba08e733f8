import { uploadAttachmentForm } from './attachments.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** POST /v1/attachments/upload (docs/attachments.md "Files"); the form's limits are the route's `requestBody`. */
export const uploadAttachmentContract = defineOperation({ operationId: 'uploadAttachment', request: { body: uploadAttachmentForm } });
