import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { getExportDownloadUrlContract } from '../../../lib/contracts/exports/get-export-download-url.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { ExportReads } from '../../../lib/domain/exports/reads.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getExportDownloadUrlRoute } from '../../../lib/routes/exports.ts';
import { AttachmentObjectsStore } from '../../../lib/store/attachment-objects.ts';
import { ExportJobsStore } from '../../../lib/store/export-jobs-store.ts';
import { BUCKET_ENV_VAR, TABLES } from '../../../lib/store/tables.ts';

const reads = new ExportReads({
  jobs: new ExportJobsStore(requiredEnv(TABLES.inventory.envVar)),
  // The attachments' presigner signs any key of the bucket; the grant limits this one to the exports prefix.
  objects: new AttachmentObjectsStore(requiredEnv(BUCKET_ENV_VAR)),
});

export const handler = createOperationHandler(bindOperation(getExportDownloadUrlRoute, getExportDownloadUrlContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.downloadUrl(principal.organizationId, path.id),
}));
