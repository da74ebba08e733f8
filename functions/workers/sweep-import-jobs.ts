import { requiredEnv } from '../../lib/config/env.ts';
import { sweepPendingJobs } from '../../lib/domain/imports/sweep-jobs.ts';
import { log } from '../../lib/http/log.ts';
import { ImportJobsStore } from '../../lib/store/import-jobs-store.ts';
import { JobQueue } from '../../lib/store/job-queue.ts';
import { IMPORT_QUEUE_ENV_VAR, TABLES } from '../../lib/store/tables.ts';

const jobs = new ImportJobsStore(requiredEnv(TABLES.inventory.envVar));
const queue = new JobQueue(requiredEnv(IMPORT_QUEUE_ENV_VAR));

export const handler = async (): Promise<void> => {
  const swept = await sweepPendingJobs({
    pendingDispatch: (cutoff) => jobs.pendingDispatch(cutoff),
    send: (message) => queue.send(message),
    markDispatched: (organizationId, jobId) => jobs.markDispatched(organizationId, jobId),
  });
  if (swept > 0) log('info', 'import jobs re-enqueued', { swept });
};
