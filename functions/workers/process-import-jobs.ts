import { requiredEnv } from '../../lib/platform/config/env.ts';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import { jobQueueWorker } from '../../lib/platform/jobs/job-workers.ts';
import { countImportMessages, countImportRows } from '../../lib/platform/observability/metrics.ts';
import { IMPORT_LAST_RECEIVE_FAILURE } from '../../lib/imports/domain/job-failures.ts';
import { DryRunOverlaysStore } from '../../lib/imports/store/dry-run-overlays-store.ts';
import { FilesStore } from '../../lib/platform/aws/files-store.ts';
import { ImportJobsStore } from '../../lib/imports/store/import-jobs-store.ts';
import { buildPorts } from '../../lib/builds/store/build-ports.ts';
import { importBuilds } from '../../lib/imports/store/import-builds.ts';
import { ImportRecordsStore } from '../../lib/imports/store/import-records.ts';
import { JobQueue } from '../../lib/platform/aws/job-queue.ts';
import { BUCKET_ENV_VAR, IMPORT_QUEUE, IMPORT_QUEUE_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';
import { BULK_CHUNK_BYTES, bulkChunkActions, storeWriteBytes, TransactionWriter } from '../../lib/platform/dynamo/transaction-writer.ts';

const tables = { inventory: requiredEnv(TABLES.inventory.envVar), events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) };
const jobs = new ImportJobsStore(tables.inventory);
const queue = new JobQueue(requiredEnv(IMPORT_QUEUE_ENV_VAR));
const processor = new ImportJobProcessor({
  jobs,
  files: new FilesStore(requiredEnv(BUCKET_ENV_VAR)),
  records: new ImportRecordsStore(tables.inventory),
  dryRunOverlays: new DryRunOverlaysStore(requiredEnv(BUCKET_ENV_VAR)),
  writer: new TransactionWriter(tables),
  builds: importBuilds(buildPorts(tables)),
  continueLater: (message) => queue.send(message),
  chunkActions: bulkChunkActions(),
  chunkBytes: BULK_CHUNK_BYTES,
  writeBytes: storeWriteBytes,
  onEnded: ({ counts: { created, updated, skipped, failed } }) => countImportRows({ created, updated, skipped, failed }),
});

/** The import queue's consumer: the job flows' one queue-worker wiring (lib/platform/jobs/job-workers.ts). */
export const handler = jobQueueWorker({
  processor,
  jobs,
  resend: (message) => queue.send(message),
  maxReceiveCount: IMPORT_QUEUE.maxReceiveCount,
  flow: 'import',
  lastReceiveFailure: IMPORT_LAST_RECEIVE_FAILURE,
  countMessages: countImportMessages,
});
