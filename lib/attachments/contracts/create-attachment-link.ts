import { createLinkBody } from './attachments.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** POST /v1/attachments/links (docs/attachments.md "Links"). */
export const createAttachmentLinkContract = defineOperation({ operationId: 'createAttachmentLink', request: { body: createLinkBody } });
