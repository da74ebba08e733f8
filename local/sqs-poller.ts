import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { QueueWorkerDefinition } from '../lib/app/workers.ts';
import { failedItemIds, startEventSourcePoller } from './event-source-poller.ts';
import type { EventSource, EventSourcePoller } from './event-source-poller.ts';

/**
 * The local stand-in for Lambda's SQS event source mapping (the CDK stack's mapping with
 * `reportBatchItemFailures`): an SQS source for the generic poller of local/event-source-poller.ts.
 * It long-polls the queue, hands the worker's handler a real-shaped SQSEvent, deletes what
 * succeeded and leaves the rest for redelivery, where the queue's redrive policy (fauxqs) moves a
 * message to the DLQ once it has been received maxReceiveCount times.
 *
 * One deliberate difference: on AWS a failed message reappears after the queue's visibility
 * timeout (360 s for the import queue). Locally the poller shortens that to `retryDelaySeconds`
 * (default 2 s) with ChangeMessageVisibility, so retries and the poison-message → DLQ path take
 * seconds instead of half an hour. `retryDelaySeconds: null` keeps the queue's timeout.
 */

export type SqsWorkerHandler = (event: SQSEvent, context: Context) => Promise<SQSBatchResponse | null | undefined | void>;

export interface QueuePollerOptions {
  worker: QueueWorkerDefinition;
  /** Used verbatim (fauxqs resolves queues by exact URL). */
  queueUrl: string;
  /** Resolves the handler of `worker.handler`; called per batch, so it should cache (load-handler.ts does). */
  loadHandler: (entry: string) => Promise<SqsWorkerHandler>;
  /** Failures and polling errors. Default: console.error. */
  log?: (line: string) => void;
  /** Seconds until a failed message is visible again. Default 2; null = the queue's visibility timeout (as on AWS). */
  retryDelaySeconds?: number | null;
  /** Long-poll wait of each ReceiveMessage, 1..20 s. Default 1: stop() returns within about that. */
  waitTimeSeconds?: number;
  /** Batches processed in parallel. Default `worker.maxConcurrency` (the mapping's MaximumConcurrency). */
  concurrency?: number;
  /** Default: a client from the environment (AWS_ENDPOINT_URL_SQS, AWS_REGION, credentials). */
  client?: SQSClient;
  /** Region put into eventSourceARN / awsRegion. Default AWS_REGION or us-east-1. */
  region?: string;
}

export type QueuePoller = EventSourcePoller;

export const DEFAULT_RETRY_DELAY_SECONDS = 2;

/** `http://host/000000000000/name` → `arn:aws:sqs:<region>:000000000000:name`. */
export function queueArnFromUrl(queueUrl: string, region: string): string {
  const segments = new URL(queueUrl).pathname.split('/').filter(Boolean);
  const name = segments.at(-1);
  if (name === undefined) throw new Error(`Not a queue URL: ${queueUrl}`);
  const account = segments.length >= 2 && /^\d{12}$/.test(segments[0] ?? '') ? (segments[0] as string) : '000000000000';
  return `arn:aws:sqs:${region}:${account}:${name}`;
}

function lambdaMessageAttributes(attributes: Record<string, MessageAttributeValue> | undefined): SQSMessageAttributes {
  const result: SQSMessageAttributes = {};
  for (const [name, value] of Object.entries(attributes ?? {})) {
    result[name] = {
      ...(value.StringValue !== undefined ? { stringValue: value.StringValue } : {}),
      ...(value.BinaryValue !== undefined ? { binaryValue: Buffer.from(value.BinaryValue).toString('base64') } : {}),
      stringListValues: value.StringListValues ?? [],
      binaryListValues: (value.BinaryListValues ?? []).map((item) => Buffer.from(item).toString('base64')),
      dataType: value.DataType ?? 'String',
    };
  }
  return result;
}

const OPTIONAL_SYSTEM_ATTRIBUTES = ['AWSTraceHeader', 'SequenceNumber', 'MessageGroupId', 'MessageDeduplicationId', 'DeadLetterQueueSourceArn'] as const;

/** A received message as Lambda hands it to an SQS-triggered function. */
export function toSqsRecord(message: Message, eventSourceARN: string, awsRegion: string): SQSRecord {
  const system = message.Attributes ?? {};
  const receivedAt = String(Date.now());
  const attributes: SQSRecordAttributes = {
    ApproximateReceiveCount: system.ApproximateReceiveCount ?? '1',
    SentTimestamp: system.SentTimestamp ?? receivedAt,
    SenderId: system.SenderId ?? '000000000000',
    ApproximateFirstReceiveTimestamp: system.ApproximateFirstReceiveTimestamp ?? receivedAt,
  };
  for (const name of OPTIONAL_SYSTEM_ATTRIBUTES) {
    const value = (system as Record<string, string | undefined>)[name];
    if (value !== undefined) attributes[name] = value;
  }
  return {
    messageId: message.MessageId ?? '',
    receiptHandle: message.ReceiptHandle ?? '',
    body: message.Body ?? '',
    attributes,
    messageAttributes: lambdaMessageAttributes(message.MessageAttributes),
    md5OfBody: message.MD5OfBody ?? '',
    ...(message.MD5OfMessageAttributes !== undefined ? { md5OfMessageAttributes: message.MD5OfMessageAttributes } : {}),
    eventSource: 'aws:sqs',
    eventSourceARN,
    awsRegion,
  };
}

/** Lambda's partial batch response rules for SQS (local/event-source-poller.ts). */
export const failedMessageIds = failedItemIds;

export interface SqsSourceOptions {
  queueUrl: string;
  client: SQSClient;
  /** Closes the client when the poller stops (it was created for the poller). */
  ownsClient: boolean;
  region: string;
  retryDelaySeconds: number | null;
  waitTimeSeconds: number;
  log: (line: string) => void;
}

/** An SQS queue as an event source: receive = ReceiveMessage, ack = delete, fail = visible again after the retry delay. */
export function sqsEventSource(options: SqsSourceOptions): EventSource<Message, SQSEvent> {
  const { client, queueUrl, region, log } = options;
  const eventSourceARN = queueArnFromUrl(queueUrl, region);

  async function changeVisibility(messages: readonly Message[], VisibilityTimeout: number): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      const { Failed } = await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((message, index) => ({ Id: `m${start + index}`, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout })),
        }),
      );
      for (const failed of Failed ?? []) log(`could not change the visibility of ${failed.Id}: ${failed.Code} ${failed.Message ?? ''}`);
    }
  }

  return {
    noun: ['message', 'messages'],
    async receive(maxRecords) {
      const received = await client.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: maxRecords,
          WaitTimeSeconds: options.waitTimeSeconds,
          AttributeNames: ['All'],
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
      );
      return received.Messages ?? [];
    },
    toEvent: (messages) => ({ Records: messages.map((message) => toSqsRecord(message, eventSourceARN, region)) }),
    itemIdentifier: (message) => message.MessageId ?? '',
    async ack(messages) {
      for (let start = 0; start < messages.length; start += 10) {
        const chunk = messages.slice(start, start + 10);
        const { Failed } = await client.send(
          new DeleteMessageBatchCommand({
            QueueUrl: queueUrl,
            Entries: chunk.map((message, index) => ({ Id: `m${start + index}`, ReceiptHandle: message.ReceiptHandle })),
          }),
        );
        for (const failed of Failed ?? []) log(`could not delete ${failed.Id}: ${failed.Code} ${failed.Message ?? ''}`);
      }
    },
    async fail(messages) {
      if (options.retryDelaySeconds !== null) await changeVisibility(messages, options.retryDelaySeconds);
    },
    // Received while stopping: hand them straight back instead of hiding them for the visibility timeout.
    release: (messages) => changeVisibility(messages, 0),
    close() {
      if (options.ownsClient) client.destroy();
    },
  };
}

/** The SQS event source mapping of one queue worker of lib/app/workers.ts. */
export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const { worker } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const retryDelaySeconds = options.retryDelaySeconds === undefined ? DEFAULT_RETRY_DELAY_SECONDS : options.retryDelaySeconds;
  const waitTimeSeconds = options.waitTimeSeconds ?? 1;
  if (!Number.isInteger(waitTimeSeconds) || waitTimeSeconds < 1 || waitTimeSeconds > 20)
    throw new Error(`waitTimeSeconds must be 1..20, got ${waitTimeSeconds}`);
  if (retryDelaySeconds !== null && (!Number.isInteger(retryDelaySeconds) || retryDelaySeconds < 0 || retryDelaySeconds > 43_200)) {
    throw new Error(`retryDelaySeconds must be 0..43200 or null, got ${retryDelaySeconds}`);
  }
  const source = sqsEventSource({
    queueUrl: options.queueUrl,
    client: options.client ?? new SQSClient({}),
    ownsClient: options.client === undefined,
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    retryDelaySeconds,
    waitTimeSeconds,
    log: (line) => log(`[${worker.id}] ${line}`),
  });
  return startEventSourcePoller({
    name: worker.id,
    source,
    loadHandler: () => options.loadHandler(worker.handler),
    timeoutSeconds: worker.timeoutSeconds,
    batchSize: worker.batchSize,
    concurrency: options.concurrency ?? worker.maxConcurrency,
    log,
  });
}
