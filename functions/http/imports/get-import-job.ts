import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { getImportJobContract } from '../../../lib/imports/contracts/get-import-job.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { ImportReads } from '../../../lib/imports/domain/read-imports.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getImportJobRoute } from '../../../lib/imports/routes.ts';
import { ImportJobsStore } from '../../../lib/imports/store/import-jobs-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const reads = new ImportReads(new ImportJobsStore(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(bindOperation(getImportJobRoute, getImportJobContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.getJob(principal.organizationId, path.id),
}));
