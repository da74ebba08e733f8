import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { requiredEnv } from '../../lib/config/env.ts';
import { ImportJobProcessor, TIME_MARGIN_MS } from '../../lib/domain/imports/process-job.ts';
import { describeError, log } from '../../lib/log.ts';
import { FilesStore } from '../../lib/store/files-store.ts';
import { ImportJobsStore } from '../../lib/store/import-jobs-store.ts';
import { ImportRecordsStore } from '../../lib/store/import-records.ts';
import { JobQueue, parseJobMessage } from '../../lib/store/job-queue.ts';
import { BUCKET_ENV_VAR, IMPORT_QUEUE, IMPORT_QUEUE_ENV_VAR, TABLES } from '../../lib/store/tables.ts';
import { BULK_CHUNK_BYTES, bulkChunkActions, storeWriteBytes, TransactionWriter } from '../../lib/store/transaction-writer.ts';
import { settleWithin } from '../../lib/deadline.ts';

const jobs = new ImportJobsStore(requiredEnv(TABLES.inventory.envVar));
const queue = new JobQueue(requiredEnv(IMPORT_QUEUE_ENV_VAR));
const processor = new ImportJobProcessor({
  jobs,
  files: new FilesStore(requiredEnv(BUCKET_ENV_VAR)),
  records: new ImportRecordsStore(requiredEnv(TABLES.inventory.envVar)),
  writer: new TransactionWriter({ events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) }),
  continueLater: (message) => queue.send(message),
  chunkActions: bulkChunkActions(),
  chunkBytes: BULK_CHUNK_BYTES,
  writeBytes: storeWriteBytes,
});

/**
 * Leaves this long before the function's timeout: a message still running then is given up on,
 * so that the invocation can report it and hand the rest of its batch on in time.
 */
export const OVERRUN_MARGIN_MS = 3_000;

/**
 * SQS consumer with partial batch failures (docs/operations.md "Workers"): a failed message is
 * reported alone and comes back after the visibility timeout; on its last allowed receive the job
 * is marked failed before the message moves to the dead-letter queue, so no job waits forever.
 * One message never costs the others of its batch their turn: the processor hands a job on
 * before its time runs out, a message that overruns anyway is reported alone, and messages
 * left without time go back as fresh messages.
 */
export const handler = async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
  const batchItemFailures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    const message = parseJobMessage(record.body);
    if (!message) {
      log('error', 'import message is not a job reference', { messageId: record.messageId });
      batchItemFailures.push({ itemIdentifier: record.messageId });
      continue;
    }
    // A message picked up with too little time left goes back as a fresh message (whole batch
    // shares one invocation's time), instead of starting work the timeout would cut off.
    if (context.getRemainingTimeInMillis() < TIME_MARGIN_MS) {
      await queue.send(message).catch(() => batchItemFailures.push({ itemIdentifier: record.messageId }));
      continue;
    }
    const { organizationId, jobId } = message;
    try {
      const work = processor.process(organizationId, jobId, () => context.getRemainingTimeInMillis(), message.handoffsWithoutProgress ?? 0);
      const settled = await settleWithin(
        work,
        () => context.getRemainingTimeInMillis() - OVERRUN_MARGIN_MS,
        (error) => log('error', 'overrun import message failed later', { organizationId, jobId, ...describeError(error) }),
      );
      if (settled.overran) {
        log('error', 'import message overran its time; it comes back after the visibility timeout', { organizationId, jobId, messageId: record.messageId });
        batchItemFailures.push({ itemIdentifier: record.messageId });
        continue;
      }
      log('info', 'import message handled', { organizationId, jobId, outcome: settled.value });
    } catch (error) {
      log('error', 'import job processing failed', { organizationId, jobId, messageId: record.messageId, ...describeError(error) });
      const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
      if (receives >= IMPORT_QUEUE.maxReceiveCount) await markFailed(organizationId, jobId);
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};

async function markFailed(organizationId: string, jobId: string): Promise<void> {
  const job = await jobs.get(organizationId, jobId).catch(() => undefined);
  if (!job) return;
  await processor
    .fail(job, { code: 'processing-error', message: 'The file could not be processed after several attempts. Submit it again, or contact support with the job id.' })
    .catch((error: unknown) => log('error', 'could not mark import job failed', { organizationId, jobId, ...describeError(error) }));
}
