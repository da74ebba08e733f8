import type { Context } from 'aws-lambda';
import { requiredEnv } from '../../lib/platform/config/env.ts';
import { endJob } from '../../lib/imports/domain/pipeline/end-job.ts';
import { IMPORT_SWEEP_FAILURES } from '../../lib/imports/domain/job-failures.ts';
import { sweepPendingJobs } from '../../lib/platform/jobs/sweep-jobs.ts';
import { describeError, log, startInvocation } from '../../lib/platform/observability/log.ts';
import { ImportJobsStore } from '../../lib/imports/store/import-jobs-store.ts';
import { DeadLetterQueue } from '../../lib/platform/aws/dead-letter-queue.ts';
import { JobQueue } from '../../lib/platform/aws/job-queue.ts';
import { IMPORT_DLQ_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';
import { TransactionWriter } from '../../lib/platform/dynamo/transaction-writer.ts';

const jobs = new ImportJobsStore(requiredEnv(TABLES.inventory.envVar));
const queue = new JobQueue(requiredEnv(IMPORT_QUEUE_ENV_VAR));
const deadLetters = new DeadLetterQueue(requiredEnv(IMPORT_DLQ_ENV_VAR));
const writer = new TransactionWriter({ events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) });

export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const swept = await sweepPendingJobs({
    pendingDispatch: (cutoff) => jobs.pendingDispatch(cutoff),
    send: (message) => queue.send(message),
    markDispatched: (organizationId, jobId) => jobs.markDispatched(organizationId, jobId),
    activeJobs: () => jobs.activeJobs(),
    deadLetters: () => deadLetters.receive(),
    getJob: (organizationId, jobId) => jobs.get(organizationId, jobId),
    fail: (job, failure) => endJob({ jobs, writer }, job, 'failed', failure, new Date().toISOString()),
    failures: IMPORT_SWEEP_FAILURES,
    onError: (job, error) => log('warn', 'import job not swept this time', { ...job, error: describeError(error) }),
  });
  if (swept.dispatched > 0 || swept.failed > 0 || swept.errors > 0) log('info', 'import jobs swept', { ...swept });
};
