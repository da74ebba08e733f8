import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { submitExportContract } from '../../../lib/exports/contracts/submit-export.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicExport } from '../../../lib/exports/domain/job.ts';
import { ExportSubmitter } from '../../../lib/exports/domain/submit.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { log } from '../../../lib/platform/observability/log.ts';
import { submitExportRoute } from '../../../lib/exports/routes.ts';
import { ExportJobsStore } from '../../../lib/exports/store/export-jobs-store.ts';
import { JobQueue } from '../../../lib/platform/aws/job-queue.ts';
import { EXPORT_QUEUE_ENV_VAR, TABLES } from '../../../lib/platform/storage/tables.ts';

const submitter = new ExportSubmitter({
  jobs: new ExportJobsStore(requiredEnv(TABLES.inventory.envVar)),
  queue: new JobQueue(requiredEnv(EXPORT_QUEUE_ENV_VAR)),
  log: (message, fields) => log('warn', message, fields),
});

export const handler = createOperationHandler(
  bindOperation(submitExportRoute, submitExportContract),
  writeChainDependencies,
  async ({ body, principal, commit }) => {
    const plan = submitter.prepare(principal.organizationId, body);
    const response = await commit(
      async () => plan,
      (job) => ({ status: 202, json: publicExport(job), headers: { Location: `/v1/exports/${job.id}` } }),
    );
    await submitter.dispatch(plan.result);
    return response;
  },
);
