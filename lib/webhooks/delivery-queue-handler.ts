import { BatchProcessor, EventType, processPartialResponse } from '@aws-lambda-powertools/batch';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { DeliveryWorker } from './domain/deliver.ts';
import { runReplayPage, type ReplayPorts } from './domain/replay.ts';
import { describeError, log, logger } from '../platform/observability/log.ts';
import { parseDeliveryMessage } from './store/webhook-queue.ts';

/**
 * The webhook delivery queue's consumer (docs/webhooks.md "Fairness"): the messages of a batch
 * run in parallel, each reported alone, so an endpoint that hangs holds only its own attempts
 * (at most the sender's 15 s), never its neighbours'; the shares bound how many invocations a
 * slow tenant's attempts can hold. A message that fails comes back after the
 * queue's visibility timeout; an attempt's own failure is not a message failure (it is settled
 * and its retry queued), so only storage or queue errors come back this way.
 *
 * `portsOfInvocation` builds the ports of each invocation: whatever batches writes (the stores'
 * batchers, the gate's, the coalescing queue) serves one invocation's messages, as on Lambda,
 * where a container runs one invocation at a time; only clients, settings and caches outlive it.
 * Every message's writes are awaited before the batch answers, so nothing is left to flush.
 */
export function createDeliveryQueueHandler(portsOfInvocation: () => DeliveryInvocationPorts) {
  return async (event: SQSEvent): Promise<SQSBatchResponse> => {
    const ports = portsOfInvocation();
    const batch = new BatchProcessor(EventType.SQS, { logger });
    try {
      return await processPartialResponse(event, (record: SQSRecord) => handleMessage(ports, record), batch, {
        processInParallel: true,
        throwOnFullBatchFailure: false,
      });
    } finally {
      ports.afterInvocation?.();
    }
  };
}

export interface DeliveryInvocationPorts {
  worker: DeliveryWorker;
  replay: ReplayPorts;
  /** What the invocation gathered and sends once at its end (its attempts' metrics). */
  afterInvocation?: () => void;
}

async function handleMessage(ports: DeliveryInvocationPorts, record: SQSRecord): Promise<string> {
  const message = parseDeliveryMessage(record.body);
  if (!message) {
    // Never valid, so never retried: dropped with a log line.
    log('error', 'webhook delivery message is not one', { messageId: record.messageId });
    return 'dropped';
  }
  try {
    if (message.kind === 'replay') return await runReplayPage(ports.replay, message);
    return await ports.worker.handle(message, Number(record.attributes.ApproximateReceiveCount) > 1);
  } catch (error) {
    log('error', 'webhook delivery message failed', { messageId: record.messageId, kind: message.kind, ...describeError(error) });
    throw error;
  }
}
