import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { getExportContract } from '../../../lib/exports/contracts/get-export.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { ExportReads } from '../../../lib/exports/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getExportRoute } from '../../../lib/exports/routes.ts';
import { ExportJobsStore } from '../../../lib/exports/store/export-jobs-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const reads = new ExportReads({ jobs: new ExportJobsStore(requiredEnv(TABLES.inventory.envVar)) });

export const handler = createOperationHandler(bindOperation(getExportRoute, getExportContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.get(principal.organizationId, path.id),
}));
