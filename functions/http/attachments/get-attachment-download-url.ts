import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { getAttachmentDownloadUrlContract } from '../../../lib/attachments/contracts/get-attachment-download-url.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { AttachmentReads } from '../../../lib/attachments/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getAttachmentDownloadUrlRoute } from '../../../lib/attachments/routes.ts';
import { AttachmentObjectsStore } from '../../../lib/attachments/store/attachment-objects.ts';
import { AttachmentsStore } from '../../../lib/attachments/store/attachments-store.ts';
import { BUCKET_ENV_VAR, TABLES } from '../../../lib/platform/storage/tables.ts';

const reads = new AttachmentReads({
  attachments: new AttachmentsStore(requiredEnv(TABLES.inventory.envVar)),
  objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)),
});

export const handler = createOperationHandler(
  bindOperation(getAttachmentDownloadUrlRoute, getAttachmentDownloadUrlContract),
  chainDependencies,
  async ({ path, principal }) => ({
    status: 200,
    json: await reads.downloadUrl(principal.organizationId, path.id),
  }),
);
