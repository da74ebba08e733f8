import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { settleWithin } from './deadline.ts';
import { TIME_MARGIN_MS } from './time-budget.ts';
import { describeError, log, logger } from '../observability/log.ts';
import { parseJobMessage, type ImportJobMessage } from '../aws/job-queue.ts';

/**
 * Leaves this long before the function's timeout: a message still running then is given up on,
 * so that the invocation can report it and hand the rest of its batch on in time.
 */
export const OVERRUN_MARGIN_MS = 3_000;

/**
 * What a job flow's batch handling needs; functions/workers/process-import-jobs.ts and
 * process-export-jobs.ts wire the real stores. Generic over the flow's job, failure and outcome:
 * every queue-driven job flow shares this handler (docs/contributing.md "A background flow").
 */
export interface JobQueuePorts<Job, Failure, Outcome> {
  processor: {
    process(organizationId: string, jobId: string, remainingMs: () => number, handoffs?: number): Promise<Outcome>;
    fail(job: Job, failure: Failure): Promise<Outcome>;
  };
  jobs: { get(organizationId: string, jobId: string): Promise<Job | undefined> };
  /** Sends the message again, as a fresh one. */
  resend(message: ImportJobMessage): Promise<void>;
  /** The queue's receive limit: the receive that reaches it is the message's last before the dead-letter queue. */
  maxReceiveCount: number;
  /** The flow's name in logs (`import`, `export`, `build`). */
  flow: string;
  /** The failure a job gets when its last allowed receive fails, in the flow's words. */
  lastReceiveFailure: Failure;
  /** Counts the batch's messages and failures (the flow's metrics). */
  countMessages: (received: number, failed: number) => void;
}

/** A message reported failed on purpose; the reason was logged where it was found. */
class MessageNotHandled extends Error {
  override name = 'MessageNotHandled';
}

/**
 * SQS consumer with partial batch failures (docs/operations.md "Workers"): a failed message is
 * reported alone and comes back after the visibility timeout; on its last allowed receive the job
 * is marked failed before the message moves to the dead-letter queue, so no job waits forever.
 * One message never costs the others of its batch their turn: the processor hands a job on
 * before its time runs out, a message that overruns anyway is reported alone, and messages
 * left without time go back as fresh messages.
 */
export function createJobQueueHandler<Job, Failure, Outcome>(ports: JobQueuePorts<Job, Failure, Outcome>) {
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    // One per invocation: a processor keeps its batch's records and failures on itself, and the
    // local poller (like the integration tests) runs invocations of one handler concurrently.
    const batch = new BatchProcessor(EventType.SQS, { logger });
    const response = await processPartialResponse(event, (record: SQSRecord) => handleMessage(ports, record, context), batch, {
      context,
      // One after the other: the messages share one invocation's time, which `handleMessage` budgets.
      processInParallel: false,
      // A batch of nothing but failures is still reported message by message, not thrown as one error.
      throwOnFullBatchFailure: false,
    });
    ports.countMessages(event.Records.length, response.batchItemFailures.length);
    return response;
  };
}

async function handleMessage<Job, Failure, Outcome>(
  ports: JobQueuePorts<Job, Failure, Outcome>,
  record: SQSRecord,
  context: Context,
): Promise<Outcome | 'resent'> {
  const { flow } = ports;
  const message = parseJobMessage(record.body);
  if (!message) {
    log('error', `${flow} message is not a job reference`, { messageId: record.messageId });
    throw new MessageNotHandled('not a job reference');
  }
  // A message picked up with too little time left goes back as a fresh message (the whole batch
  // shares one invocation's time), instead of starting work the timeout would cut off.
  if (context.getRemainingTimeInMillis() < TIME_MARGIN_MS) {
    await ports.resend(message);
    return 'resent';
  }
  const { organizationId, jobId } = message;
  let settled: Awaited<ReturnType<typeof settleWithin<Outcome>>>;
  try {
    const work = ports.processor.process(organizationId, jobId, () => context.getRemainingTimeInMillis(), message.handoffsWithoutProgress ?? 0);
    settled = await settleWithin(
      work,
      () => context.getRemainingTimeInMillis() - OVERRUN_MARGIN_MS,
      (error) => log('error', `overrun ${flow} message failed later`, { organizationId, jobId, ...describeError(error) }),
    );
  } catch (error) {
    log('error', `${flow} job processing failed`, { organizationId, jobId, messageId: record.messageId, ...describeError(error) });
    const receives = Number(record.attributes.ApproximateReceiveCount ?? '1');
    if (receives >= ports.maxReceiveCount) await markFailed(ports, organizationId, jobId);
    throw error;
  }
  // Not a processing failure: the job may still finish in the background, so it is not marked failed.
  if (settled.overran) {
    log('error', `${flow} message overran its time; it comes back after the visibility timeout`, { organizationId, jobId, messageId: record.messageId });
    throw new MessageNotHandled('overran its time');
  }
  log('info', `${flow} message handled`, { organizationId, jobId, outcome: settled.value });
  return settled.value;
}

async function markFailed<Job, Failure, Outcome>(ports: JobQueuePorts<Job, Failure, Outcome>, organizationId: string, jobId: string): Promise<void> {
  const job = await ports.jobs.get(organizationId, jobId).catch(() => undefined);
  if (!job) return;
  await ports.processor
    .fail(job, ports.lastReceiveFailure)
    .catch((error: unknown) => log('error', `could not mark ${ports.flow} job failed`, { organizationId, jobId, ...describeError(error) }));
}
