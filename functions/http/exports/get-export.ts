import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { getExportContract } from '../../../lib/contracts/exports/get-export.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { ExportReads } from '../../../lib/domain/exports/reads.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getExportRoute } from '../../../lib/routes/exports.ts';
import { ExportJobsStore } from '../../../lib/store/export-jobs-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const reads = new ExportReads({ jobs: new ExportJobsStore(requiredEnv(TABLES.inventory.envVar)) });

export const handler = createOperationHandler(bindOperation(getExportRoute, getExportContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.get(principal.organizationId, path.id),
}));
