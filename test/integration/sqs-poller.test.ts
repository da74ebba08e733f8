import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  CreateQueueCommand,
  DeleteQueueCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SQSClient,
  SendMessageBatchCommand,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord, ScheduledEvent } from 'aws-lambda';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_QUEUE } from '../../lib/platform/storage/tables.ts';
import type { QueueWorkerDefinition, ScheduledWorkerDefinition } from '../../lib/app/workers.ts';
import { periodOverride, startScheduler } from '../../local/scheduler.ts';
import type { ScheduledWorkerHandler } from '../../local/scheduler.ts';
import { failedMessageIds, startQueuePoller } from '../../local/sqs-poller.ts';
import type { QueuePoller, SqsWorkerHandler } from '../../local/sqs-poller.ts';

/**
 * The local event source mapping (local/sqs-poller.ts) against fauxqs of the run-wide stack.
 * The running `npm start` polls the import queue itself, so every test uses its OWN queue + DLQ
 * (maxReceiveCount 3, a visibility timeout far longer than the tests: any redelivery seen here
 * comes from the poller's retry delay) and a handler defined in the test.
 */

const MAX_RECEIVE_COUNT = 3;
const QUEUE_VISIBILITY_TIMEOUT_SECONDS = 120;

const WORKER: QueueWorkerDefinition = {
  id: 'testQueueWorker',
  trigger: 'queue',
  handler: 'in-test',
  queue: IMPORT_QUEUE.id,
  timeoutSeconds: 5,
  batchSize: 3,
  maxConcurrency: 2,
  access: { tables: {} },
};

let sqs: SQSClient;
const queuesToDelete: string[] = [];
const pollers: QueuePoller[] = [];

interface TestQueues {
  name: string;
  queueUrl: string;
  deadLetterQueueUrl: string;
}

async function createQueues(): Promise<TestQueues> {
  const name = `sqs-poller-test-${randomUUID().slice(0, 8)}`;
  const dlq = await sqs.send(new CreateQueueCommand({ QueueName: `${name}-dlq` }));
  const deadLetterQueueUrl = dlq.QueueUrl as string;
  queuesToDelete.push(deadLetterQueueUrl);
  const { Attributes } = await sqs.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }));
  const queue = await sqs.send(
    new CreateQueueCommand({
      QueueName: name,
      Attributes: {
        VisibilityTimeout: String(QUEUE_VISIBILITY_TIMEOUT_SECONDS),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn: Attributes?.QueueArn, maxReceiveCount: MAX_RECEIVE_COUNT }),
      },
    }),
  );
  const queueUrl = queue.QueueUrl as string;
  queuesToDelete.push(queueUrl);
  return { name, queueUrl, deadLetterQueueUrl };
}

async function send(queueUrl: string, bodies: string[]): Promise<void> {
  await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: queueUrl,
      Entries: bodies.map((body, index) => ({
        Id: `e${index}`,
        MessageBody: body,
        MessageAttributes: { kind: { DataType: 'String', StringValue: 'test' } },
      })),
    }),
  );
}

async function queueDepth(queueUrl: string): Promise<{ visible: number; inFlight: number }> {
  const { Attributes } = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: queueUrl,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return { visible: Number(Attributes?.ApproximateNumberOfMessages), inFlight: Number(Attributes?.ApproximateNumberOfMessagesNotVisible) };
}

async function waitFor(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await sleep(50);
  }
}

interface Delivery {
  at: number;
  record: SQSRecord;
}

/** A handler that records every delivery and fails what `decide` says. */
function recordingHandler(decide: (record: SQSRecord, deliveries: Delivery[]) => 'ok' | 'fail' | 'throw') {
  const deliveries: Delivery[] = [];
  const events: SQSEvent[] = [];
  const handler: SqsWorkerHandler = async (event) => {
    events.push(event);
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    let shouldThrow = false;
    for (const record of event.Records) {
      deliveries.push({ at: Date.now(), record });
      const verdict = decide(record, deliveries);
      if (verdict === 'fail') failures.push({ itemIdentifier: record.messageId });
      if (verdict === 'throw') shouldThrow = true;
    }
    if (shouldThrow) throw new Error('handler crashed');
    return { batchItemFailures: failures };
  };
  const of = (body: string) => deliveries.filter((delivery) => delivery.record.body === body);
  return { handler, deliveries, events, of };
}

function poll(queueUrl: string, handler: SqsWorkerHandler, options: { retryDelaySeconds?: number; concurrency?: number } = {}) {
  const logs: string[] = [];
  const poller = startQueuePoller({
    worker: WORKER,
    queueUrl,
    loadHandler: async () => handler,
    log: (line) => logs.push(line),
    retryDelaySeconds: options.retryDelaySeconds ?? 1,
    concurrency: options.concurrency ?? 1,
  });
  pollers.push(poller);
  return { poller, logs };
}

beforeAll(() => {
  sqs = new SQSClient({});
});

afterEach(async () => {
  await Promise.all(pollers.splice(0).map((poller) => poller.stop()));
  await Promise.allSettled(queuesToDelete.splice(0).map((QueueUrl) => sqs.send(new DeleteQueueCommand({ QueueUrl }))));
});

afterAll(() => {
  sqs.destroy();
});

describe('startQueuePoller (local SQS event source mapping)', () => {
  it('passes a real-shaped SQSEvent, deletes the successes and redelivers the reported failure', async () => {
    // Prepare
    const queues = await createQueues();
    await send(queues.queueUrl, ['first', 'second', 'third']);
    const worker = recordingHandler((record) => (record.body === 'second' && record.attributes.ApproximateReceiveCount === '1' ? 'fail' : 'ok'));

    // Act
    const { logs } = poll(queues.queueUrl, worker.handler);
    await waitFor('the redelivery of the failed message', () => worker.of('second').length === 2);
    await waitFor('an empty queue', async () => {
      const depth = await queueDepth(queues.queueUrl);
      return depth.visible === 0 && depth.inFlight === 0;
    });

    // Assess
    const first = worker.events[0] as SQSEvent;
    expect(first.Records.map((record) => record.body)).toEqual(['first', 'second', 'third']);
    for (const record of first.Records) {
      expect(record).toMatchObject({
        messageId: expect.any(String),
        receiptHandle: expect.any(String),
        md5OfBody: expect.stringMatching(/^[0-9a-f]{32}$/),
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queues.name}`,
        awsRegion: 'us-east-1',
        attributes: {
          ApproximateReceiveCount: '1',
          SentTimestamp: expect.stringMatching(/^\d{13}$/),
          SenderId: expect.any(String),
          ApproximateFirstReceiveTimestamp: expect.stringMatching(/^\d{13}$/),
        },
        messageAttributes: { kind: { stringValue: 'test', stringListValues: [], binaryListValues: [], dataType: 'String' } },
      });
    }
    expect(worker.of('first')).toHaveLength(1);
    expect(worker.of('third')).toHaveLength(1);
    const [failedOnce, redelivered] = worker.of('second') as [Delivery, Delivery];
    expect(redelivered.record.messageId).toBe(failedOnce.record.messageId);
    expect(redelivered.record.attributes.ApproximateReceiveCount).toBe('2');
    expect(redelivered.at - failedOnce.at).toBeGreaterThanOrEqual(900);
    expect(logs.join('\n')).toMatch(/1 of 3 messages failed/);
  });

  it("hands an invocation at most the worker's batch size, however many messages wait", async () => {
    // Prepare: ten messages waiting for a worker of batch size 3, two invocations at a time
    const queues = await createQueues();
    const bodies = Array.from({ length: 10 }, (_, index) => `m${index}`);
    await send(queues.queueUrl, bodies);
    const worker = recordingHandler(() => 'ok');

    // Act
    poll(queues.queueUrl, worker.handler, { concurrency: 2 });
    await waitFor('every message', () => bodies.every((body) => worker.of(body).length > 0));

    // Assess
    expect(Math.max(...worker.events.map((event) => event.Records.length))).toBeLessThanOrEqual(WORKER.batchSize);
    expect(worker.deliveries.map((delivery) => delivery.record.body).sort()).toEqual(bodies);
  });

  it('moves a message that always fails to the DLQ after maxReceiveCount receives, waiting the retry delay between them', async () => {
    // Prepare
    const queues = await createQueues();
    await send(queues.queueUrl, ['poison']);
    const worker = recordingHandler(() => 'fail');

    // Act
    poll(queues.queueUrl, worker.handler, { retryDelaySeconds: 1 });
    let deadLetters: string[] = [];
    await waitFor('the dead letter', async () => {
      const { Messages } = await sqs.send(new ReceiveMessageCommand({ QueueUrl: queues.deadLetterQueueUrl, WaitTimeSeconds: 1 }));
      deadLetters = (Messages ?? []).map((message) => message.Body ?? '');
      return deadLetters.length > 0;
    });
    await sleep(1_500);

    // Assess
    expect(deadLetters).toEqual(['poison']);
    const receives = worker.of('poison');
    expect(receives.map((delivery) => delivery.record.attributes.ApproximateReceiveCount)).toEqual(['1', '2', '3']);
    for (let index = 1; index < receives.length; index += 1) {
      expect((receives[index] as Delivery).at - (receives[index - 1] as Delivery).at).toBeGreaterThanOrEqual(900);
    }
    expect(await queueDepth(queues.queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });

  it('redelivers the whole batch when the handler throws, as Lambda does', async () => {
    // Prepare
    const queues = await createQueues();
    await send(queues.queueUrl, ['a', 'b']);
    // The first batch (deliveries 1 and 2) crashes the handler; later deliveries succeed.
    const worker = recordingHandler((_record, deliveries) => (deliveries.length <= 2 ? 'throw' : 'ok'));

    // Act
    const { logs } = poll(queues.queueUrl, worker.handler);
    await waitFor('both redelivered', () => worker.of('a').length === 2 && worker.of('b').length === 2);
    await waitFor('an empty queue', async () => {
      const depth = await queueDepth(queues.queueUrl);
      return depth.visible === 0 && depth.inFlight === 0;
    });

    // Assess
    for (const body of ['a', 'b']) {
      expect(worker.of(body).map((delivery) => delivery.record.attributes.ApproximateReceiveCount)).toEqual(['1', '2']);
    }
    expect(logs.join('\n')).toMatch(/handler failed the whole batch of 2: Error: handler crashed/);
  });

  it('fails the whole batch when batchItemFailures names a message that is not in it', async () => {
    // Prepare
    const queues = await createQueues();
    await send(queues.queueUrl, ['x', 'y']);
    let deliveries = 0;
    const handler: SqsWorkerHandler = async (event) => {
      const firstBatch = deliveries === 0;
      deliveries += event.Records.length;
      return { batchItemFailures: firstBatch ? [{ itemIdentifier: 'not-a-message-of-this-batch' }] : [] };
    };

    // Act
    const { logs } = poll(queues.queueUrl, handler);
    await waitFor('the redelivered batch', () => deliveries === 4);
    await waitFor('an empty queue', async () => {
      const depth = await queueDepth(queues.queueUrl);
      return depth.visible === 0 && depth.inFlight === 0;
    });

    // Assess
    expect(logs.join('\n')).toMatch(/whole batch of 2 failed: batchItemFailures names "not-a-message-of-this-batch"/);
  });

  it('stop() returns promptly when idle, and after the batch in flight is settled when busy', async () => {
    // Prepare
    const queues = await createQueues();
    const idle = poll(queues.queueUrl, async () => ({ batchItemFailures: [] }), { concurrency: 2 });
    await sleep(300);

    // Act
    const idleStarted = Date.now();
    await idle.poller.stop();
    const idleStopMs = Date.now() - idleStarted;

    // Prepare
    await send(queues.queueUrl, ['slow']);
    let finished = false;
    const busy = poll(queues.queueUrl, async () => {
      await sleep(700);
      finished = true;
      return { batchItemFailures: [] };
    });
    await waitFor('the slow batch to start', async () => (await queueDepth(queues.queueUrl)).inFlight === 1);

    // Act
    await busy.poller.stop();

    // Assess
    expect(idleStopMs).toBeLessThan(2_000);
    expect(finished).toBe(true);
    expect(await queueDepth(queues.queueUrl)).toEqual({ visible: 0, inFlight: 0 });
  });
});

describe('failedMessageIds (Lambda partial batch response rules)', () => {
  const ids = ['m1', 'm2', 'm3'];

  it.each([
    ['undefined', undefined, []],
    ['null', null, []],
    ['an empty object', {}, []],
    ['batchItemFailures: null', { batchItemFailures: null }, []],
    ['an empty list', { batchItemFailures: [] }, []],
    ['one failure', { batchItemFailures: [{ itemIdentifier: 'm2' }] }, ['m2']],
  ])('%s → failed %j', (_name, response, expected) => {
    // Act
    const outcome = failedMessageIds(response, ids);

    // Assess
    expect([...outcome.ids]).toEqual(expected);
    expect(outcome.wholeBatch).toBeUndefined();
  });

  it.each([
    ['an empty itemIdentifier', { batchItemFailures: [{ itemIdentifier: '' }] }],
    ['a null itemIdentifier', { batchItemFailures: [{ itemIdentifier: null }] }],
    ['a wrongly named key', { batchItemFailures: [{ id: 'm1' }] }],
    ['an unknown message id', { batchItemFailures: [{ itemIdentifier: 'm9' }] }],
    ['a non-array', { batchItemFailures: 'm1' }],
    ['a string response', 'ok'],
  ])('%s → the whole batch failed', (_name, response) => {
    // Act
    const outcome = failedMessageIds(response, ids);

    // Assess
    expect([...outcome.ids]).toEqual(ids);
    expect(outcome.wholeBatch).toEqual(expect.any(String));
  });
});

describe('startScheduler (local EventBridge rate rules)', () => {
  const SWEEPER: ScheduledWorkerDefinition = {
    id: 'testSweeper',
    trigger: 'schedule',
    handler: 'in-test',
    everySeconds: 60,
    timeoutSeconds: 5,
    access: { tables: {} },
  };

  it('runs the handler every period with a ScheduledEvent, never overlapping, and stop() waits for the run in progress', async () => {
    // Prepare
    const events: ScheduledEvent[] = [];
    let running = 0;
    let maxRunning = 0;
    let finishedRuns = 0;
    const handler: ScheduledWorkerHandler = async (event) => {
      events.push(event);
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      await sleep(250);
      running -= 1;
      finishedRuns += 1;
    };

    // Act
    const scheduler = startScheduler({ workers: [SWEEPER], loadHandler: async () => handler, everySeconds: 0.1 });
    await waitFor('three runs', () => events.length >= 3);
    await scheduler.stop();

    // Assess
    expect(maxRunning).toBe(1);
    expect(finishedRuns).toBe(events.length);
    expect(events[0]).toMatchObject({
      version: '0',
      'detail-type': 'Scheduled Event',
      source: 'aws.events',
      account: '000000000000',
      region: 'us-east-1',
      time: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/),
      resources: [expect.stringMatching(/^arn:aws:events:us-east-1:000000000000:rule\//)],
      detail: {},
    });
    const countAfterStop = events.length;
    await sleep(300);
    expect(events.length).toBe(countAfterStop);
  });

  it('keeps the schedule after a failing run and logs it', async () => {
    // Prepare
    const logs: string[] = [];
    let runs = 0;
    const handler: ScheduledWorkerHandler = async () => {
      runs += 1;
      if (runs === 1) throw new Error('sweep failed');
    };

    // Act
    const scheduler = startScheduler({ workers: [SWEEPER], loadHandler: async () => handler, everySeconds: 0.1, log: (line) => logs.push(line) });
    await waitFor('a run after the failure', () => runs >= 2);
    await scheduler.stop();

    // Assess
    expect(logs).toEqual(['[testSweeper] scheduled run failed: Error: sweep failed']);
  });

  it.each([
    [undefined, undefined],
    ['', undefined],
    ['2', 2],
    ['0.5', 0.5],
  ])('LOCAL_SWEEP_SECONDS=%j → %j', (value, expected) => {
    // Act + Assess
    expect(periodOverride(value)).toBe(expected);
  });

  it.each(['0', '-1', 'soon'])('LOCAL_SWEEP_SECONDS=%j is refused', (value) => {
    // Act + Assess
    expect(() => periodOverride(value)).toThrow(/LOCAL_SWEEP_SECONDS must be a positive number/);
  });
});
