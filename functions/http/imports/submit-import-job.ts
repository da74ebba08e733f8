import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { submitImportJobContract } from '../../../lib/contracts/imports/submit-import-job.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicJob } from '../../../lib/domain/imports/job.ts';
import { ImportJobSubmitter } from '../../../lib/domain/imports/submit-job.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { parseMultipart } from '../../../lib/http/multipart.ts';
import { log } from '../../../lib/log.ts';
import { submitImportJobRoute } from '../../../lib/routes/imports.ts';
import { FilesStore } from '../../../lib/store/files-store.ts';
import { ImportJobsStore } from '../../../lib/store/import-jobs-store.ts';
import { JobQueue } from '../../../lib/store/job-queue.ts';
import { BUCKET_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES } from '../../../lib/store/tables.ts';

const submitter = new ImportJobSubmitter({
  files: new FilesStore(requiredEnv(BUCKET_ENV_VAR)),
  jobs: new ImportJobsStore(requiredEnv(TABLES.inventory.envVar)),
  queue: new JobQueue(requiredEnv(IMPORT_QUEUE_ENV_VAR)),
  log: (message, fields) => log('warn', message, fields),
});

export const handler = createOperationHandler(bindOperation(submitImportJobRoute, submitImportJobContract), { ...writeChainDependencies, parseMultipart }, async ({ body, principal, commit }) => {
  const plan = await submitter.prepare(principal.organizationId, { ...body, dryRun: body.dryRun === 'true' });
  const response = await commit(
    async () => plan,
    (job) => ({ status: 202, json: publicJob(job), headers: { Location: `/v1/imports/jobs/${job.id}` } }),
  );
  await submitter.dispatch(plan.result);
  return response;
});
