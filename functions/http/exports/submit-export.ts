import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { submitExportContract } from '../../../lib/contracts/exports/submit-export.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicExport } from '../../../lib/domain/exports/job.ts';
import { ExportSubmitter } from '../../../lib/domain/exports/submit.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { log } from '../../../lib/log.ts';
import { submitExportRoute } from '../../../lib/routes/exports.ts';
import { ExportJobsStore } from '../../../lib/store/export-jobs-store.ts';
import { JobQueue } from '../../../lib/store/job-queue.ts';
import { EXPORT_QUEUE_ENV_VAR, TABLES } from '../../../lib/store/tables.ts';

const submitter = new ExportSubmitter({
  jobs: new ExportJobsStore(requiredEnv(TABLES.inventory.envVar)),
  queue: new JobQueue(requiredEnv(EXPORT_QUEUE_ENV_VAR)),
  log: (message, fields) => log('warn', message, fields),
});

export const handler = createOperationHandler(bindOperation(submitExportRoute, submitExportContract), writeChainDependencies, async ({ body, principal, commit }) => {
  const plan = submitter.prepare(principal.organizationId, body);
  const response = await commit(
    async () => plan,
    (job) => ({ status: 202, json: publicExport(job), headers: { Location: `/v1/exports/${job.id}` } }),
  );
  await submitter.dispatch(plan.result);
  return response;
});
