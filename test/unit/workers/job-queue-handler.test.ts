import { randomUUID } from 'node:crypto';
import type { Context, SQSRecord } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { ImportJobState, JobFailure } from '../../../lib/imports/domain/job.ts';
import { IMPORT_LAST_RECEIVE_FAILURE } from '../../../lib/imports/domain/job-failures.ts';
import { countImportMessages } from '../../../lib/platform/observability/metrics.ts';
import { TIME_MARGIN_MS } from '../../../lib/platform/jobs/time-budget.ts';
import type { ProcessOutcome } from '../../../lib/imports/domain/pipeline/ports.ts';
import { createJobQueueHandler, OVERRUN_MARGIN_MS, type JobQueuePorts } from '../../../lib/platform/jobs/job-queue-handler.ts';
import type { ImportJobMessage } from '../../../lib/platform/aws/job-queue.ts';
import { lambdaContext } from '../../../local/lambda-event.ts';

/**
 * The import worker's partial batch failures (docs/operations.md "Workers") with in-memory
 * ports: which messages of a batch are reported failed, which go back as fresh messages, and
 * when a job is marked failed. test/integration/import-worker.test.ts runs the real stores.
 */

const MAX_RECEIVES = 5;

function record(body: string, receiveCount = 1): SQSRecord {
  return {
    messageId: randomUUID(),
    receiptHandle: 'handle',
    body,
    attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '0', SenderId: '0', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:imports',
    awsRegion: 'us-east-1',
  };
}

const jobRecord = (jobId: string, receiveCount = 1) => record(JSON.stringify({ organizationId: 'org_1', jobId }), receiveCount);

/** What each job id does when processed: an outcome, a thrown error, or never settling. */
type Behaviour = ProcessOutcome | Error | 'hangs';

function setup(behaviours: Record<string, Behaviour> = {}) {
  const processed: string[] = [];
  const resent: ImportJobMessage[] = [];
  const failedJobs: string[] = [];
  let running = 0;
  let mostAtOnce = 0;
  const ports: JobQueuePorts<ImportJobState, JobFailure, ProcessOutcome> = {
    processor: {
      process: async (_organizationId, jobId) => {
        processed.push(jobId);
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        try {
          const behaviour = behaviours[jobId] ?? 'finished';
          await new Promise((resolve) => setTimeout(resolve, 5));
          if (behaviour === 'hangs') return await new Promise<never>(() => undefined);
          if (behaviour instanceof Error) throw behaviour;
          return behaviour;
        } finally {
          running -= 1;
        }
      },
      fail: async (job) => {
        failedJobs.push(job.id);
        return 'finished';
      },
    },
    jobs: {
      get: async (organizationId, jobId) =>
        ({ id: jobId, organizationId, counts: { totalRows: 3, processedRows: 3, created: 2, updated: 0, skipped: 0, failed: 1 } }) as ImportJobState,
    },
    resend: async (message) => {
      resent.push(message);
    },
    maxReceiveCount: MAX_RECEIVES,
    flow: 'import',
    lastReceiveFailure: IMPORT_LAST_RECEIVE_FAILURE,
    countMessages: countImportMessages,
  };
  return { handler: createJobQueueHandler(ports), ports, processed, resent, failedJobs, mostAtOnce: () => mostAtOnce };
}

/** A context whose remaining time is `first` on its first reading and `then` after that. */
function contextWithTime(first: number, then: number): Context {
  let readings = 0;
  return { ...lambdaContext('processImportJobs', randomUUID(), 60_000), getRemainingTimeInMillis: () => (readings++ === 0 ? first : then) };
}

const failed = (response: { batchItemFailures: { itemIdentifier: string }[] }) => response.batchItemFailures.map((failure) => failure.itemIdentifier);

beforeEach(() => {
  // The handler logs each message; these tests read the responses.
  vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
  vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the import batch', () => {
  it('reports nothing when every message is handled, processing them one after the other in order', async () => {
    // Prepare
    const { handler, processed, mostAtOnce } = setup();
    const records = ['a', 'b', 'c'].map((jobId) => jobRecord(jobId));

    // Act
    const response = await handler({ Records: records }, lambdaContext('processImportJobs', randomUUID(), 60_000));

    // Assess
    expect(failed(response)).toEqual([]);
    expect(processed).toEqual(['a', 'b', 'c']);
    expect(mostAtOnce()).toBe(1);
  });

  it('reports a message that is not a job reference alone', async () => {
    // Prepare
    const { handler, processed } = setup();
    const records = [jobRecord('a'), record('not json'), jobRecord('b')];

    // Act
    const response = await handler({ Records: records }, lambdaContext('processImportJobs', randomUUID(), 60_000));

    // Assess
    expect(failed(response)).toEqual([records[1]?.messageId]);
    expect(processed).toEqual(['a', 'b']);
  });

  it('reports every message of a batch that fails entirely, instead of throwing', async () => {
    // Prepare
    const { handler } = setup();
    const records = ['not json', '{"organizationId":1}', '[]'].map((body) => record(body));

    // Act
    const response = await handler({ Records: records }, lambdaContext('processImportJobs', randomUUID(), 60_000));

    // Assess
    expect(failed(response)).toEqual(records.map((entry) => entry.messageId));
  });

  it('sends a message picked up with too little time back as a fresh message, without processing or reporting it', async () => {
    // Prepare
    const { handler, processed, resent } = setup();

    // Act
    const response = await handler({ Records: [jobRecord('a')] }, contextWithTime(TIME_MARGIN_MS - 1, TIME_MARGIN_MS - 1));

    // Assess
    expect(failed(response)).toEqual([]);
    expect(processed).toEqual([]);
    expect(resent).toEqual([{ organizationId: 'org_1', jobId: 'a' }]);
  });

  it('reports a message left without time whose fresh copy cannot be sent', async () => {
    // Prepare
    const { handler, ports } = setup();
    ports.resend = async () => {
      throw new Error('queue unavailable');
    };
    const records = [jobRecord('a')];

    // Act
    const response = await handler({ Records: records }, contextWithTime(TIME_MARGIN_MS - 1, TIME_MARGIN_MS - 1));

    // Assess
    expect(failed(response)).toEqual([records[0]?.messageId]);
  });

  it('reports a message that overruns its time alone, and does not mark its job failed even on the last receive', async () => {
    // Prepare: enough time to start, then the deadline less the overrun margin has passed
    const { handler, failedJobs } = setup({ slow: 'hangs' });
    const records = [jobRecord('slow', MAX_RECEIVES)];

    // Act
    const response = await handler({ Records: records }, contextWithTime(60_000, OVERRUN_MARGIN_MS - 1));

    // Assess
    expect(failed(response)).toEqual([records[0]?.messageId]);
    expect(failedJobs).toEqual([]);
  });

  it('reports a job whose processing throws, and marks it failed only on the last allowed receive', async () => {
    // Prepare
    const { handler, failedJobs } = setup({ broken: new Error('file missing') });
    const early = jobRecord('broken', MAX_RECEIVES - 1);
    const last = jobRecord('broken', MAX_RECEIVES);

    // Act
    const first = await handler({ Records: [early] }, lambdaContext('processImportJobs', randomUUID(), 60_000));
    const afterMarked = failedJobs.length;
    const second = await handler({ Records: [last] }, lambdaContext('processImportJobs', randomUUID(), 60_000));

    // Assess
    expect(failed(first)).toEqual([early.messageId]);
    expect(afterMarked).toBe(0);
    expect(failed(second)).toEqual([last.messageId]);
    expect(failedJobs).toEqual(['broken']);
  });

  it('reports only the failing message of a batch of three', async () => {
    // Prepare
    const { handler, processed } = setup({ broken: new Error('file missing') });
    const records = [jobRecord('good'), jobRecord('broken'), jobRecord('also-good')];

    // Act
    const response = await handler({ Records: records }, lambdaContext('processImportJobs', randomUUID(), 60_000));

    // Assess
    expect(failed(response)).toEqual([records[1]?.messageId]);
    expect(processed).toEqual(['good', 'broken', 'also-good']);
  });

  it('keeps the message of a finished job handled when its rows cannot be read for the metric', async () => {
    // Prepare
    const { handler, ports } = setup();
    ports.jobs.get = async () => {
      throw new Error('table unavailable');
    };

    // Act
    const response = await handler({ Records: [jobRecord('a')] }, lambdaContext('processImportJobs', randomUUID(), 60_000));

    // Assess
    expect(failed(response)).toEqual([]);
  });
});

describe('import batches of concurrent invocations', () => {
  it("reports each invocation's own failures", async () => {
    // Prepare: one handler, as the local poller runs it, with two batches at once
    const { handler } = setup({ broken: new Error('file missing') });
    const first = [jobRecord('a'), jobRecord('broken')];
    const second = [jobRecord('b'), record('not json'), jobRecord('c')];

    // Act
    const [firstResponse, secondResponse] = await Promise.all([
      handler({ Records: first }, lambdaContext('processImportJobs', randomUUID(), 60_000)),
      handler({ Records: second }, lambdaContext('processImportJobs', randomUUID(), 60_000)),
    ]);

    // Assess
    expect(failed(firstResponse)).toEqual([first[1]?.messageId]);
    expect(failed(secondResponse)).toEqual([second[1]?.messageId]);
  });
});
