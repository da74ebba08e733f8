import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { getAttachmentDownloadUrlContract } from '../../../lib/contracts/attachments/get-attachment-download-url.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { AttachmentReads } from '../../../lib/domain/attachments/reads.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getAttachmentDownloadUrlRoute } from '../../../lib/routes/attachments.ts';
import { AttachmentObjectsStore } from '../../../lib/store/attachment-objects.ts';
import { AttachmentsStore } from '../../../lib/store/attachments-store.ts';
import { BUCKET_ENV_VAR, TABLES } from '../../../lib/store/tables.ts';

const reads = new AttachmentReads({
  attachments: new AttachmentsStore(requiredEnv(TABLES.inventory.envVar)),
  objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)),
});

export const handler = createOperationHandler(bindOperation(getAttachmentDownloadUrlRoute, getAttachmentDownloadUrlContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.downloadUrl(principal.organizationId, path.id),
}));
