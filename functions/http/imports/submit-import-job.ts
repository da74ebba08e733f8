import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { submitImportJobContract } from '../../../lib/imports/contracts/submit-import-job.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicJob } from '../../../lib/imports/domain/job.ts';
import { ImportJobSubmitter } from '../../../lib/imports/domain/submit-job.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { parseMultipart } from '../../../lib/platform/http/multipart.ts';
import { log } from '../../../lib/platform/observability/log.ts';
import { submitImportJobRoute } from '../../../lib/imports/routes.ts';
import { FilesStore } from '../../../lib/platform/aws/files-store.ts';
import { ImportJobsStore } from '../../../lib/imports/store/import-jobs-store.ts';
import { JobQueue } from '../../../lib/platform/aws/job-queue.ts';
import { BUCKET_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES } from '../../../lib/platform/storage/tables.ts';

const submitter = new ImportJobSubmitter({
  files: new FilesStore(requiredEnv(BUCKET_ENV_VAR)),
  jobs: new ImportJobsStore(requiredEnv(TABLES.inventory.envVar)),
  queue: new JobQueue(requiredEnv(IMPORT_QUEUE_ENV_VAR)),
  log: (message, fields) => log('warn', message, fields),
});

export const handler = createOperationHandler(
  bindOperation(submitImportJobRoute, submitImportJobContract),
  { ...writeChainDependencies, parseMultipart },
  async ({ body, principal, commit }) => {
    const plan = await submitter.prepare(principal.organizationId, { ...body, dryRun: body.dryRun === 'true' });
    const response = await commit(
      async () => plan,
      (job) => ({ status: 202, json: publicJob(job), headers: { Location: `/v1/imports/jobs/${job.id}` } }),
    );
    await submitter.dispatch(plan.result);
    return response;
  },
);
