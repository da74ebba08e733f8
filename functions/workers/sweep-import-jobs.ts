import { requiredEnv } from '../../lib/platform/config/env.ts';
import { endJob } from '../../lib/imports/domain/pipeline/end-job.ts';
import { IMPORT_SWEEP_FAILURES } from '../../lib/imports/domain/job-failures.ts';
import { jobSweepWorker } from '../../lib/platform/jobs/job-workers.ts';
import { ImportJobsStore } from '../../lib/imports/store/import-jobs-store.ts';
import { DeadLetterQueue } from '../../lib/platform/aws/dead-letter-queue.ts';
import { JobQueue } from '../../lib/platform/aws/job-queue.ts';
import { IMPORT_DLQ_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';
import { TransactionWriter } from '../../lib/platform/dynamo/transaction-writer.ts';

const jobs = new ImportJobsStore(requiredEnv(TABLES.inventory.envVar));
const queue = new JobQueue(requiredEnv(IMPORT_QUEUE_ENV_VAR));
const deadLetters = new DeadLetterQueue(requiredEnv(IMPORT_DLQ_ENV_VAR));
const writer = new TransactionWriter({ events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) });

/** The import flow's sweeper: the job flows' one sweep wiring (lib/platform/jobs/job-workers.ts) over import jobs. */
export const handler = jobSweepWorker({
  flow: 'import',
  jobs,
  queue,
  deadLetters,
  fail: (job, failure) => endJob({ jobs, writer }, job, 'failed', failure, new Date().toISOString()),
  failures: IMPORT_SWEEP_FAILURES,
});
