import { requiredEnv } from '../../lib/platform/config/env.ts';
import { failExport } from '../../lib/exports/domain/process-export.ts';
import type { ExportFailure, ExportJobState } from '../../lib/exports/domain/job.ts';
import { jobSweepWorker } from '../../lib/platform/jobs/job-workers.ts';
import { ExportFilesStore } from '../../lib/exports/store/export-files.ts';
import { ExportJobsStore } from '../../lib/exports/store/export-jobs-store.ts';
import { ExportSlotsStore } from '../../lib/exports/store/export-slots.ts';
import { DeadLetterQueue } from '../../lib/platform/aws/dead-letter-queue.ts';
import { JobQueue } from '../../lib/platform/aws/job-queue.ts';
import { BUCKET_ENV_VAR, EXPORT_DLQ_ENV_VAR, EXPORT_QUEUE_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';
import { TransactionWriter } from '../../lib/platform/dynamo/transaction-writer.ts';

/** The export flow's sweeper: the job flows' one sweep wiring (lib/platform/jobs/job-workers.ts) over export jobs. */

const jobs = new ExportJobsStore(requiredEnv(TABLES.inventory.envVar));
const queue = new JobQueue(requiredEnv(EXPORT_QUEUE_ENV_VAR));
const deadLetters = new DeadLetterQueue(requiredEnv(EXPORT_DLQ_ENV_VAR));
const files = new ExportFilesStore(requiredEnv(BUCKET_ENV_VAR));
const slots = new ExportSlotsStore(requiredEnv(TABLES.inventory.envVar), jobs);
const writer = new TransactionWriter({ events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) });

const FAILURES = {
  deadLetter: {
    code: 'processing-error',
    message: 'The export could not be written after repeated attempts and was stopped. Submit it again, or contact support with the export id.',
  },
  abandoned: { code: 'processing-error', message: 'The export made no progress for longer than its queue keeps work and was stopped. Submit it again.' },
};

export const handler = jobSweepWorker<ExportJobState, ExportFailure>({
  flow: 'export',
  jobs,
  queue,
  deadLetters,
  fail: (job, failure) => failExport({ jobs, files, slots, writer }, job, failure, new Date().toISOString()),
  failures: FAILURES,
});
