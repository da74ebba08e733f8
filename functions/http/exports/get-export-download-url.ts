import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { getExportDownloadUrlContract } from '../../../lib/exports/contracts/get-export-download-url.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { ExportReads } from '../../../lib/exports/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getExportDownloadUrlRoute } from '../../../lib/exports/routes.ts';
import { AttachmentObjectsStore } from '../../../lib/attachments/store/attachment-objects.ts';
import { ExportJobsStore } from '../../../lib/exports/store/export-jobs-store.ts';
import { BUCKET_ENV_VAR, TABLES } from '../../../lib/platform/storage/tables.ts';

const reads = new ExportReads({
  jobs: new ExportJobsStore(requiredEnv(TABLES.inventory.envVar)),
  // The attachments' presigner signs any key of the bucket; the grant limits this one to the exports prefix.
  objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)),
});

export const handler = createOperationHandler(
  bindOperation(getExportDownloadUrlRoute, getExportDownloadUrlContract),
  chainDependencies,
  async ({ path, principal }) => ({
    status: 200,
    json: await reads.downloadUrl(principal.organizationId, path.id),
  }),
);
