import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { getImportJobContract } from '../../../lib/contracts/imports/get-import-job.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { ImportReads } from '../../../lib/domain/imports/read-imports.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getImportJobRoute } from '../../../lib/routes/imports.ts';
import { ImportJobsStore } from '../../../lib/store/import-jobs-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const reads = new ImportReads(new ImportJobsStore(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(bindOperation(getImportJobRoute, getImportJobContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.getJob(principal.organizationId, path.id),
}));
