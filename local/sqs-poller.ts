import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SQSClient,
  type Message,
  type MessageAttributeValue,
} from '@aws-sdk/client-sqs';
import type { Context, SQSBatchResponse, SQSEvent, SQSMessageAttributes, SQSRecord, SQSRecordAttributes } from 'aws-lambda';
import type { QueueWorkerDefinition } from '../lib/workers.ts';
import { lambdaContext } from './lambda-event.ts';
import { invokeWithTimeout } from './load-handler.ts';

/**
 * The local stand-in for Lambda's SQS event source mapping (the CDK stack's SqsEventSource with
 * `reportBatchItemFailures`): long-polls the queue, invokes the worker's handler with a real-shaped
 * SQSEvent, deletes what succeeded and leaves the rest for redelivery, where the queue's redrive
 * policy (fauxqs) moves a message to the DLQ once it has been received maxReceiveCount times.
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

export interface QueuePoller {
  /** Stops polling, lets in-flight batches finish (bounded by the worker timeout), then resolves. */
  stop(): Promise<void>;
}

export const DEFAULT_RETRY_DELAY_SECONDS = 2;
const MAX_BACKOFF_MS = 30_000;

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

const OPTIONAL_SYSTEM_ATTRIBUTES = [
  'AWSTraceHeader',
  'SequenceNumber',
  'MessageGroupId',
  'MessageDeduplicationId',
  'DeadLetterQueueSourceArn',
] as const;

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

/**
 * Lambda's reading of a partial batch response: nothing (null/undefined/{}), or an empty or null
 * `batchItemFailures` = all succeeded; a malformed response, or an itemIdentifier that is empty,
 * null or not a message of the batch = the whole batch failed. Returns the failed message ids.
 */
export function failedMessageIds(response: unknown, batchIds: readonly string[]): { ids: Set<string>; wholeBatch?: string } {
  const all = (reason: string) => ({ ids: new Set(batchIds), wholeBatch: reason });
  if (response === undefined || response === null) return { ids: new Set() };
  if (typeof response !== 'object' || Array.isArray(response)) return all('the handler returned something other than an SQSBatchResponse');
  const failures = (response as { batchItemFailures?: unknown }).batchItemFailures;
  if (failures === undefined || failures === null) return { ids: new Set() };
  if (!Array.isArray(failures)) return all('batchItemFailures is not an array');
  const known = new Set(batchIds);
  const ids = new Set<string>();
  for (const failure of failures as unknown[]) {
    const id = (failure as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    if (typeof id !== 'string' || id === '' || !known.has(id)) {
      return all(`batchItemFailures names ${JSON.stringify(id)}, which is not a message of the batch`);
    }
    ids.add(id);
  }
  return { ids };
}

export function startQueuePoller(options: QueuePollerOptions): QueuePoller {
  const { worker, queueUrl } = options;
  const log = options.log ?? ((line: string) => console.error(line));
  const say = (line: string) => log(`[${worker.id}] ${line}`);
  const retryDelaySeconds = options.retryDelaySeconds === undefined ? DEFAULT_RETRY_DELAY_SECONDS : options.retryDelaySeconds;
  const waitTimeSeconds = options.waitTimeSeconds ?? 1;
  const concurrency = options.concurrency ?? worker.maxConcurrency;
  if (!Number.isInteger(waitTimeSeconds) || waitTimeSeconds < 1 || waitTimeSeconds > 20) throw new Error(`waitTimeSeconds must be 1..20, got ${waitTimeSeconds}`);
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  if (retryDelaySeconds !== null && (!Number.isInteger(retryDelaySeconds) || retryDelaySeconds < 0 || retryDelaySeconds > 43_200)) {
    throw new Error(`retryDelaySeconds must be 0..43200 or null, got ${retryDelaySeconds}`);
  }
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const eventSourceARN = queueArnFromUrl(queueUrl, region);
  const client = options.client ?? new SQSClient({});
  const timeoutMs = worker.timeoutSeconds * 1000;
  const stopSignal = new AbortController();
  let stopping = false;

  const errorText = (error: unknown) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

  async function changeVisibility(messages: readonly Message[], VisibilityTimeout: number): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      const { Failed } = await client.send(
        new ChangeMessageVisibilityBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((message, index) => ({ Id: `m${start + index}`, ReceiptHandle: message.ReceiptHandle, VisibilityTimeout })),
        }),
      );
      for (const failed of Failed ?? []) say(`could not change the visibility of ${failed.Id}: ${failed.Code} ${failed.Message ?? ''}`);
    }
  }

  async function deleteMessages(messages: readonly Message[]): Promise<void> {
    for (let start = 0; start < messages.length; start += 10) {
      const chunk = messages.slice(start, start + 10);
      const { Failed } = await client.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((message, index) => ({ Id: `m${start + index}`, ReceiptHandle: message.ReceiptHandle })),
        }),
      );
      for (const failed of Failed ?? []) say(`could not delete ${failed.Id}: ${failed.Code} ${failed.Message ?? ''}`);
    }
  }

  async function processBatch(messages: readonly Message[]): Promise<void> {
    const records = messages.map((message) => toSqsRecord(message, eventSourceARN, region));
    const batchIds = records.map((record) => record.messageId);
    let failed: Set<string>;
    try {
      const handler = await options.loadHandler(worker.handler);
      const response = await invokeWithTimeout(handler, { Records: records }, lambdaContext(worker.id, randomUUID(), timeoutMs), timeoutMs);
      const outcome = failedMessageIds(response, batchIds);
      if (outcome.wholeBatch) say(`whole batch of ${batchIds.length} failed: ${outcome.wholeBatch}`);
      else if (outcome.ids.size > 0) say(`${outcome.ids.size} of ${batchIds.length} messages failed: ${[...outcome.ids].join(', ')}`);
      failed = outcome.ids;
    } catch (error) {
      // Like Lambda: an error (or timeout) fails the whole batch and nothing is deleted.
      say(`handler failed the whole batch of ${batchIds.length}: ${errorText(error)}`);
      failed = new Set(batchIds);
    }
    await deleteMessages(messages.filter((message) => !failed.has(message.MessageId ?? '')));
    const retry = messages.filter((message) => failed.has(message.MessageId ?? ''));
    if (retry.length > 0 && retryDelaySeconds !== null) await changeVisibility(retry, retryDelaySeconds);
  }

  async function pollLoop(): Promise<void> {
    let consecutiveErrors = 0;
    while (!stopping) {
      let messages: Message[];
      try {
        const received = await client.send(
          new ReceiveMessageCommand({
            QueueUrl: queueUrl,
            MaxNumberOfMessages: worker.batchSize,
            WaitTimeSeconds: waitTimeSeconds,
            AttributeNames: ['All'],
            MessageSystemAttributeNames: ['All'],
            MessageAttributeNames: ['All'],
          }),
        );
        messages = received.Messages ?? [];
        consecutiveErrors = 0;
      } catch (error) {
        if (stopping) break;
        consecutiveErrors += 1;
        const backoffMs = Math.min(MAX_BACKOFF_MS, 250 * 2 ** (consecutiveErrors - 1));
        say(`receiving from ${queueUrl} failed (${errorText(error)}); retrying in ${backoffMs} ms`);
        await sleep(backoffMs, undefined, { signal: stopSignal.signal }).catch(() => undefined);
        continue;
      }
      if (messages.length === 0) continue;
      try {
        if (stopping) {
          // Received while stopping: hand them straight back instead of hiding them for the visibility timeout.
          await changeVisibility(messages, 0);
          break;
        }
        await processBatch(messages);
      } catch (error) {
        // Delete/visibility calls failed: the messages reappear after their visibility timeout.
        say(`settling a batch of ${messages.length} failed: ${errorText(error)}`);
      }
    }
  }

  const loops = Array.from({ length: concurrency }, () => pollLoop().catch((error: unknown) => say(`poller stopped by a bug: ${errorText(error)}`)));
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopping = true;
      stopSignal.abort();
      stopped ??= Promise.all(loops).then(() => {
        if (!options.client) client.destroy();
      });
      return stopped;
    },
  };
}
