import { randomUUID } from 'node:crypto';
import { SendMessageCommand } from '@aws-sdk/client-sqs';
import type { StreamWorkerDefinition } from '../lib/app/workers.ts';
import { QUEUES } from '../lib/platform/storage/tables.ts';
import { sqsClient } from '../lib/platform/aws/sqs-client.ts';
import type { StreamBatchFailure } from './stream-poller.ts';

/**
 * The on-failure destination of a stream worker's local mapping: the dead-letter queue of its
 * `onFailureQueue`, as infra/background-flow.ts configures it on AWS (docs/webhooks.md
 * "Guarantees"). The message has the shape of Lambda's: where the records are, not the records.
 */
export function streamOnFailureDestination(worker: StreamWorkerDefinition): (failure: StreamBatchFailure) => Promise<void> {
  const envVar = QUEUES[worker.onFailureQueue].deadLetterEnvVar;
  return async (failure) => {
    const queueUrl = process.env[envVar];
    if (!queueUrl) throw new Error(`${worker.id}: no on-failure queue (${envVar} is not set)`);
    const { streamArn, shardId, startSequenceNumber, endSequenceNumber, batchSize } = failure;
    const body = {
      requestContext: {
        requestId: randomUUID(),
        functionArn: `local:${worker.id}`,
        condition: 'RetryAttemptsExhausted',
        approximateInvokeCount: worker.maxRetries + 1,
      },
      version: '1.0',
      timestamp: new Date().toISOString(),
      DDBStreamBatchInfo: { shardId, startSequenceNumber, endSequenceNumber, batchSize, streamArn },
    };
    await sqsClient.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: JSON.stringify(body) }));
  };
}
