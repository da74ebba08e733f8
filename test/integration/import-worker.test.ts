import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse } from 'aws-lambda';
import { afterAll, describe, expect, it } from 'vitest';
import { handler } from '../../functions/workers/process-import-jobs.ts';
import { handler as sweepHandler } from '../../functions/workers/sweep-import-jobs.ts';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { ImportJobState, JobCounts } from '../../lib/imports/domain/job.ts';
import { TIME_MARGIN_MS } from '../../lib/platform/jobs/time-budget.ts';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import type { ProcessOutcome, ProcessPorts } from '../../lib/imports/domain/pipeline/ports.ts';
import type { CommandWriter } from '../../lib/platform/write/ports.ts';
import { AuditStore } from '../../lib/audit/store/audit-store.ts';
import { IMPORT_QUEUE, IMPORT_QUEUE_ENV_VAR } from '../../lib/platform/storage/tables.ts';
import { bulkChunkActions, WriteConflictError, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { IMPORT_DLQ_ENV_VAR } from '../../local/aws-stack/index.ts';
import { DEFAULT_RETRY_DELAY_SECONDS } from '../../local/sqs-poller.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import {
  commitQueuedJob,
  countPerSku,
  csvOf,
  feedOf,
  filesStore,
  importJobsStore,
  importRecords,
  itemsCsv,
  itemsOf,
  jobMessage,
  skusOf,
  sqsEvent,
  sqsRecord,
  storedJob,
  workerContext,
} from '../support/imports.ts';

/**
 * The import worker on the local stack (docs/imports.md "Guarantees": a redelivered or resumed message neither
 * duplicates nor loses rows). The SQS handler of functions/workers/process-import-jobs.ts and
 * the sweeper's handler are invoked DIRECTLY with events built here; jobs are committed with the
 * real stores and never sent to the queue, so the running server's poller does not race the
 * tests (except where a test hands a job to the queue on purpose: the sweeper and the DLQ).
 * Crashes are injected honestly: a writer that throws around its k-th transaction, or a clock
 * that runs out after k chunks, with every other port real.
 */

const FINISHED = ['succeeded', 'completed_with_errors', 'failed'];
/** A new item row writes its record, its sku claim and its list entry, the chunk's events one batch item together: 32 rows fill a transaction (100 actions, 2 reserved). */
const ROWS_PER_CHUNK = 32;
/**
 * The fault tests below need several chunks from a small file, so their processor plans
 * transactions of 10 actions (a few item rows each); the chunking logic is the same at any size.
 */
const SMALL_TRANSACTION = { maxActions: 10 };

const deliver = (organizationId: string, jobId: string, receiveCount = 1, messageId?: string) =>
  handler(sqsEvent(sqsRecord(jobMessage(organizationId, jobId), { receiveCount, ...(messageId ? { messageId } : {}) })), workerContext());

const failures = (response: SQSBatchResponse) => response.batchItemFailures.map((failure) => failure.itemIdentifier);

async function auditKinds(organizationId: string): Promise<string[]> {
  const { events } = await new AuditStore(tableName('audit')).list(organizationId, { limit: 200 });
  return events.map((event) => event.kind).sort();
}

/** Asserts the invariants of an items job that created `created` items: each once, with one event each. */
async function expectCreatedOnce(organizationId: string, skus: readonly string[]) {
  const records = await itemsOf(organizationId, skus);
  expect(records.size).toBe(skus.length);
  expect([...records.values()].every(({ version }) => version === 1)).toBe(true);
  const events = await feedOf(organizationId);
  const created = events.filter((event) => event.type === 'item.created');
  expect(created).toHaveLength(skus.length);
  expect([...countPerSku(events, 'item.created').values()].every((count) => count === 1)).toBe(true);
  for (const event of created) {
    const item = event.data.item as Item;
    expect(item.id).toBe(records.get(item.sku)?.record.id);
  }
}

const exactCounts = (counts: Partial<JobCounts> & { totalRows: number }): JobCounts => ({
  processedRows: counts.totalRows,
  created: 0,
  updated: 0,
  skipped: 0,
  failed: 0,
  ...counts,
});

describe('a message delivered more than once', () => {
  it('applies the rows once when the same message comes twice in a row', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const { job } = await commitQueuedJob(organizationId, { file: itemsCsv(30, 'TWICE') });
    const messageId = randomUUID();

    // Act
    const first = await deliver(organizationId, job.id, 1, messageId);
    const second = await deliver(organizationId, job.id, 2, messageId);

    // Assess
    expect(failures(first)).toEqual([]);
    expect(failures(second)).toEqual([]);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.status).toBe('succeeded');
    expect(stored.counts).toEqual(exactCounts({ totalRows: 30, created: 30 }));
    await expectCreatedOnce(organizationId, skusOf(30, 'TWICE'));
    expect(await auditKinds(organizationId)).toEqual(['import.completed', 'import.submitted']);
  });

  it('applies the rows once when two deliveries run at the same time', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const { job } = await commitQueuedJob(organizationId, { file: itemsCsv(60, 'TOGETHER') });

    // Act: both at once; the one that loses the race to start the job carries on from the other's state
    const together = await Promise.all([deliver(organizationId, job.id), deliver(organizationId, job.id)]);

    // Assess: neither delivery fails (a failure would be redelivered, and on its last receive mark the job failed)
    expect(together.flatMap(failures)).toEqual([]);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.status).toBe('succeeded');
    expect(stored.counts).toEqual(exactCounts({ totalRows: 60, created: 60 }));
    await expectCreatedOnce(organizationId, skusOf(60, 'TOGETHER'));
    expect(await auditKinds(organizationId)).toEqual(['import.completed', 'import.submitted']);
  });

  it('applies the rows once when a second delivery joins a job already halfway through', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const rows = 200;
    const { job } = await commitQueuedJob(organizationId, { file: itemsCsv(rows, 'JOIN') });

    // Act: the second delivery starts once the first has committed a few chunks
    const first = deliver(organizationId, job.id);
    let seen: ImportJobState;
    do {
      await sleep(5);
      seen = await storedJob(organizationId, job.id);
    } while (seen.checkpoint < 3 * ROWS_PER_CHUNK && !FINISHED.includes(seen.status));
    const joinedAt = seen.checkpoint;
    const second = await deliver(organizationId, job.id, 2);

    // Assess: the late delivery sees the checkpoint move and stops quietly; the first one finishes
    expect(joinedAt).toBeLessThan(rows);
    expect(failures(second)).toEqual([]);
    expect(failures(await first)).toEqual([]);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.status).toBe('succeeded');
    expect(stored.counts).toEqual(exactCounts({ totalRows: rows, created: rows }));
    await expectCreatedOnce(organizationId, skusOf(rows, 'JOIN'));
  });
});

describe('a worker that stops after chunk k', () => {
  const K = 3;
  const header = ['sku', 'name', 'unit'];
  /** 10 existing items: 5 renamed (updated), 5 as they are (skipped); 26 new; 4 without a name (failed). */
  const existing = csvOf(
    header,
    skusOf(10, 'RES').map((itemSku) => [itemSku, `Old ${itemSku}`, 'ea']),
  );
  const file = csvOf(header, [
    ...skusOf(10, 'RES').map((itemSku, index) => [itemSku, index < 5 ? `New ${itemSku}` : `Old ${itemSku}`, 'ea']),
    ...skusOf(30, 'NEW').map((itemSku, index) => [itemSku, index % 7 === 6 ? '' : `Item ${itemSku}`, 'ea']),
  ]);
  const newSkus = skusOf(30, 'NEW').filter((_, index) => index % 7 !== 6);
  const expectedCounts = exactCounts({ totalRows: 40, created: 26, updated: 5, skipped: 5, failed: 4 });

  type Fault = { label: string; writerCrash?: 'before' | 'after'; outOfTime?: boolean };

  function realPorts(): ProcessPorts<StoreWrite> {
    return {
      jobs: importJobsStore(),
      files: filesStore(),
      records: importRecords(),
      writer: transactionWriter(),
      continueLater: () => Promise.reject(new Error('continueLater was not expected')),
      chunkActions: bulkChunkActions(SMALL_TRANSACTION),
    };
  }

  it.each<Fault>([
    { label: 'its transaction for chunk k + 1 fails before committing', writerCrash: 'before' },
    { label: 'it dies right after chunk k committed', writerCrash: 'after' },
    { label: 'its time runs out after chunk k (the rest is handed to a new message)', outOfTime: true },
  ])('resumes from the checkpoint when $label: no row lost or doubled, counts exact, events once', async ({ writerCrash, outOfTime }) => {
    // Prepare: the existing items, then the job of the mixed file
    const organizationId = uniqueOrganization();
    const seed = await commitQueuedJob(organizationId, { file: existing });
    expect(await new ImportJobProcessor(realPorts()).process(organizationId, seed.job.id, () => 60_000)).toBe('finished');
    const before = await itemsOf(organizationId, skusOf(10, 'RES'));
    const eventsBefore = (await feedOf(organizationId)).length;
    const { job } = await commitQueuedJob(organizationId, { file, duplicateStrategy: 'update' });
    const real = transactionWriter();
    let transactions = 0;
    const writer: CommandWriter<StoreWrite> = {
      async run(context, build, respond) {
        transactions += 1;
        if (writerCrash === 'before' && transactions === K + 1) throw new Error('simulated crash before commit');
        const committed = await real.run(context, build, respond);
        if (writerCrash === 'after' && transactions === K) throw new Error('simulated crash after commit');
        return committed;
      },
    };
    const remainingMs = () => (outOfTime && transactions >= K ? TIME_MARGIN_MS - 1 : 60_000);
    const continued: Array<{ organizationId: string; jobId: string }> = [];
    const faulty = new ImportJobProcessor({ ...realPorts(), writer, continueLater: async (message) => void continued.push(message) });

    // Act
    const outcome = await faulty.process(organizationId, job.id, remainingMs).catch((error: Error) => error.message);
    const halfway = await storedJob(organizationId, job.id);
    const resumed = await deliver(organizationId, job.id, 2);

    // Assess: the first run stopped after exactly k chunks
    expect(outcome).toBe<ProcessOutcome | string>(outOfTime ? 'continued' : `simulated crash ${writerCrash} commit`);
    expect(continued).toEqual(outOfTime ? [{ organizationId, jobId: job.id, handoffsWithoutProgress: 0 }] : []);
    expect(halfway.status).toBe('processing');
    // The checkpoint is the row number up to which rows were handled: applied, or counted as
    // failed with their errors stored, in the same transactions.
    const invalidRows = [17, 24, 31, 38];
    expect(halfway.checkpoint).toBeGreaterThan(0);
    expect(halfway.checkpoint).toBeLessThan(expectedCounts.totalRows);
    expect(halfway.counts.processedRows).toBe(halfway.checkpoint);
    expect(halfway.counts.failed).toBe(invalidRows.filter((rowNumber) => rowNumber <= halfway.checkpoint).length);
    // Assess: the second delivery finished the job exactly
    expect(failures(resumed)).toEqual([]);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.status).toBe('completed_with_errors');
    expect(stored.counts).toEqual(expectedCounts);
    const after = await itemsOf(organizationId, [...skusOf(10, 'RES'), ...newSkus]);
    expect(after.size).toBe(36);
    skusOf(10, 'RES').forEach((itemSku, index) => {
      expect(after.get(itemSku)?.version).toBe(index < 5 ? 2 : 1);
      expect(after.get(itemSku)?.record.id).toBe(before.get(itemSku)?.record.id);
    });
    const events = (await feedOf(organizationId)).slice(eventsBefore);
    expect(events).toHaveLength(26 + 5);
    expect([...countPerSku(events, 'item.created').keys()].sort()).toEqual(newSkus);
    expect([...countPerSku(events, 'item.created').values()].every((count) => count === 1)).toBe(true);
    expect([...countPerSku(events, 'item.updated')].sort()).toEqual(skusOf(5, 'RES').map((itemSku) => [itemSku, 1]));
    expect(await importJobsStore().listRowErrors(organizationId, job.id, undefined, 50)).toMatchObject({
      errors: [17, 24, 31, 38].map((rowNumber) => ({ rowNumber, column: 'name', code: 'required' })),
      more: false,
    });
  });
});

describe('a chunk whose transaction lost the race for the event sequence after every retry', () => {
  it('is decided again after a random pause instead of failing the message: counts exact, events once', async () => {
    // Prepare: the writer gives up on the counter (WriteConflictError, as after its 25 tries) on
    // the 2nd and 3rd transactions, as under heavy contention of one organization's writers
    const organizationId = uniqueOrganization();
    const { job } = await commitQueuedJob(organizationId, { file: itemsCsv(40, 'RACE') });
    const real = transactionWriter();
    let transactions = 0;
    const writer: CommandWriter<StoreWrite> = {
      async run(context, build, respond) {
        transactions += 1;
        if (transactions === 2 || transactions === 3) throw new WriteConflictError('Gave up after 25 conflicting attempts');
        return real.run(context, build, respond);
      },
    };
    const processor = new ImportJobProcessor({
      jobs: importJobsStore(),
      files: filesStore(),
      records: importRecords(),
      writer,
      continueLater: () => Promise.reject(new Error('continueLater was not expected')),
      chunkActions: bulkChunkActions(SMALL_TRANSACTION),
    });

    // Act
    const outcome = await processor.process(organizationId, job.id, () => 60_000);

    // Assess
    expect(outcome).toBe<ProcessOutcome>('finished');
    expect(transactions).toBeGreaterThan(3);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.status).toBe('succeeded');
    expect(stored.counts).toEqual(exactCounts({ totalRows: 40, created: 40 }));
    await expectCreatedOnce(organizationId, skusOf(40, 'RACE'));
  });
});

describe('a resumed locations job with a forward reference', () => {
  // A resumed run sees tenant data that holds the first run's own writes. Row 2's verdict committed
  // with the first chunk, so the resumed run neither re-judges it nor counts it again.
  it('counts a row whose parent a later row of the same file created once, as the first run judged it', async () => {
    // Prepare: row 2 names a parent created by row 3, so it is unknown-location; a new location takes 3 actions (record, code claim, list entry)
    const organizationId = uniqueOrganization();
    const rows = [
      ['P-A', 'Parent A', 'zone', ''],
      ['C-1', 'Child 1', 'bin', 'P-B'],
      ['P-B', 'Parent B', 'zone', ''],
    ];
    for (let index = 4; index <= 12; index += 1) rows.push([`L-${index}`, `Location ${index}`, 'bin', 'P-A']);
    const { job } = await commitQueuedJob(organizationId, {
      kind: 'locations',
      duplicateStrategy: 'fail',
      file: csvOf(['code', 'name', 'type', 'parentCode'], rows),
    });
    const real = transactionWriter();
    let transactions = 0;
    const writer: CommandWriter<StoreWrite> = {
      async run(context, build, respond) {
        transactions += 1;
        if (transactions === 2) throw new Error('simulated crash before commit');
        return real.run(context, build, respond);
      },
    };
    const ports: ProcessPorts<StoreWrite> = {
      jobs: importJobsStore(),
      files: filesStore(),
      records: importRecords(),
      writer,
      continueLater: () => Promise.reject(new Error('continueLater was not expected')),
      chunkActions: bulkChunkActions({ maxActions: 17 }),
    };

    // Act
    await new ImportJobProcessor(ports).process(organizationId, job.id, () => 60_000).catch(() => undefined);
    const halfway = await storedJob(organizationId, job.id);
    const resumed = await deliver(organizationId, job.id, 2);

    // Assess: the same result as without the crash. The first chunk (7 creates of 2 actions and the fixed ones: 17) holds row 2's
    // error and rows 1 and 3..8: the checkpoint is row 8.
    expect(halfway.checkpoint).toBe(8);
    expect(halfway.counts).toMatchObject({ processedRows: 8, created: 7, failed: 1 });
    expect(failures(resumed)).toEqual([]);
    const stored = await storedJob(organizationId, job.id);
    const errors = await importJobsStore().listRowErrors(organizationId, job.id, undefined, 50);
    expect({ counts: stored.counts, errors: errors.errors.map((error) => [error.rowNumber, error.code]) }).toEqual({
      counts: exactCounts({ totalRows: 12, created: 11, failed: 1 }),
      errors: [[2, 'unknown-location']],
    });
  });
});

describe('poison messages and jobs that keep failing', () => {
  it.each([1, IMPORT_QUEUE.maxReceiveCount])('reports a message that is not a job reference as failed (receive %i)', async (receiveCount) => {
    // Prepare
    const records = ['not json', '{"organizationId":1}', '[]'].map((body) => sqsRecord(body, { receiveCount }));

    // Act
    const response = await handler(sqsEvent(...records), workerContext());

    // Assess
    expect(failures(response)).toEqual(records.map((record) => record.messageId));
  });

  it('reports a job whose processing throws as failed, and marks it failed on the last allowed receive', async () => {
    // Prepare: the job's file is missing from the bucket, so every attempt throws
    const organizationId = uniqueOrganization();
    const { job } = await commitQueuedJob(organizationId, { file: null });
    const statuses: string[] = [];

    // Act
    for (let receive = 1; receive <= IMPORT_QUEUE.maxReceiveCount; receive += 1) {
      const record = sqsRecord(jobMessage(organizationId, job.id), { receiveCount: receive });
      const response = await handler(sqsEvent(record), workerContext());
      expect(failures(response)).toEqual([record.messageId]);
      statuses.push((await storedJob(organizationId, job.id)).status);
    }
    const afterwards = await deliver(organizationId, job.id, IMPORT_QUEUE.maxReceiveCount + 1);

    // Assess
    expect(statuses).toEqual(['queued', 'queued', 'queued', 'queued', 'failed']);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.failure).toEqual({ code: 'processing-error', message: expect.any(String) });
    expect(stored.completedAt).not.toBeNull();
    expect(failures(afterwards)).toEqual([]);
    expect(await auditKinds(organizationId)).toEqual(['import.failed', 'import.submitted']);
  });

  it('reports only the failing message of a batch of three', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const good = await commitQueuedJob(organizationId, { file: itemsCsv(5, 'GOOD') });
    const broken = await commitQueuedJob(organizationId, { file: null });
    const alsoGood = await commitQueuedJob(organizationId, { file: itemsCsv(5, 'ALSO') });
    const records = [good, broken, alsoGood].map(({ job }) => sqsRecord(jobMessage(organizationId, job.id)));

    // Act
    const response = await handler(sqsEvent(...records), workerContext());

    // Assess
    expect(failures(response)).toEqual([records[1]?.messageId]);
    expect((await storedJob(organizationId, good.job.id)).counts).toEqual(exactCounts({ totalRows: 5, created: 5 }));
    expect((await storedJob(organizationId, alsoGood.job.id)).counts).toEqual(exactCounts({ totalRows: 5, created: 5 }));
    expect((await storedJob(organizationId, broken.job.id)).status).toBe('queued');
  });

  describe('on the real import queue', () => {
    const sqs = new SQSClient({});
    afterAll(() => sqs.destroy());

    it('moves a poison message to the dead-letter queue after the receive limit', { timeout: 90_000 }, async () => {
      // Prepare
      const body = `poison ${randomUUID()}`;
      const deadLetterQueueUrl = process.env[IMPORT_DLQ_ENV_VAR];
      expect(deadLetterQueueUrl).toBeTruthy();

      // Act: the server's poller receives it, fails it, and retries it after ~2 s each time
      const sentAt = Date.now();
      await sqs.send(new SendMessageCommand({ QueueUrl: process.env[IMPORT_QUEUE_ENV_VAR], MessageBody: body }));
      const deadline = sentAt + 75_000;
      let found: { Body?: string; ReceiptHandle?: string } | undefined;
      while (!found && Date.now() < deadline) {
        const { Messages = [] } = await sqs.send(
          new ReceiveMessageCommand({ QueueUrl: deadLetterQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 1 }),
        );
        found = Messages.find((message) => message.Body === body);
      }
      const elapsedMs = Date.now() - sentAt;

      // Assess
      expect(found?.Body).toBe(body);
      // Not on the first failure: only after the receive limit, each retry ~2 s after the last.
      expect(elapsedMs).toBeGreaterThanOrEqual((IMPORT_QUEUE.maxReceiveCount - 1) * DEFAULT_RETRY_DELAY_SECONDS * 1000 - 500);
      await sqs.send(new DeleteMessageCommand({ QueueUrl: deadLetterQueueUrl, ReceiptHandle: found?.ReceiptHandle }));
    });
  });
});

describe('two jobs on the same records at once', () => {
  it(
    "both succeed: a chunk that loses a race is decided again against fresh records; every sku is created once and ends with the last writer's values",
    { timeout: 120_000 },
    async () => {
      // Prepare: two 3,000-row update jobs over the same skus, with different names
      const organizationId = uniqueOrganization();
      const skus = skusOf(3000, 'BOTH');
      const fileOf = (label: string) =>
        csvOf(
          ['sku', 'name'],
          skus.map((itemSku) => [itemSku, `${label} ${itemSku}`]),
        );
      const first = await commitQueuedJob(organizationId, { file: fileOf('First'), duplicateStrategy: 'update' });
      const second = await commitQueuedJob(organizationId, { file: fileOf('Second'), duplicateStrategy: 'update' });

      // Act: both run at once
      const responses = await Promise.all([deliver(organizationId, first.job.id), deliver(organizationId, second.job.id)]);

      // Assess: no failed message, both jobs done with every row accounted for
      expect(responses.flatMap(failures)).toEqual([]);
      const jobs = await Promise.all([storedJob(organizationId, first.job.id), storedJob(organizationId, second.job.id)]);
      for (const job of jobs) {
        expect(job.status).toBe('succeeded');
        expect(job.counts.processedRows).toBe(3000);
        expect(job.counts.created + job.counts.updated + job.counts.skipped).toBe(3000);
        expect(job.counts.failed).toBe(0);
      }
      expect(jobs[0]!.counts.created + jobs[1]!.counts.created).toBe(3000);
      const feed = await feedOf(organizationId);
      const created = countPerSku(feed, 'item.created');
      expect(created.size).toBe(3000);
      expect([...created.values()].every((count) => count === 1)).toBe(true);
      // The stored record is what the sku's last event says: the last writer's values.
      const lastEvent = new Map<string, Item>();
      for (const event of feed)
        if (event.type === 'item.created' || event.type === 'item.updated') lastEvent.set((event.data.item as Item).sku, event.data.item as Item);
      const stored = await itemsOf(organizationId, skus);
      expect(stored.size).toBe(3000);
      for (const itemSku of skus) expect(stored.get(itemSku)?.record.name).toBe(lastEvent.get(itemSku)?.name);
    },
  );
});

describe('the sweeper', () => {
  it('hands a job committed but never dispatched to the queue, where the worker finishes it; young jobs wait', { timeout: 60_000 }, async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const stale = await commitQueuedJob(organizationId, { file: itemsCsv(5, 'SWEPT'), submittedAt: new Date(Date.now() - 5 * 60_000), dispatched: false });
    const young = await commitQueuedJob(organizationId, { file: itemsCsv(5, 'YOUNG'), dispatched: false });
    const pending = async () => (await importJobsStore().pendingDispatch(new Date(Date.now() + 60_000).toISOString())).map((entry) => entry.jobId);
    const pendingBefore = await pending();

    // Act
    await sweepHandler();
    const pendingAfter = await pending();
    let stored = await storedJob(organizationId, stale.job.id);
    const deadline = Date.now() + 45_000;
    while (!FINISHED.includes(stored.status) && Date.now() < deadline) {
      await sleep(200);
      stored = await storedJob(organizationId, stale.job.id);
    }
    await importJobsStore().markDispatched(organizationId, young.job.id);

    // Assess
    expect(pendingBefore).toEqual(expect.arrayContaining([stale.job.id, young.job.id]));
    expect(pendingAfter).not.toContain(stale.job.id);
    expect(pendingAfter).toContain(young.job.id);
    expect(stored.status).toBe('succeeded');
    expect(stored.counts).toEqual(exactCounts({ totalRows: 5, created: 5 }));
    expect((await storedJob(organizationId, young.job.id)).status).toBe('queued');
    await expectCreatedOnce(organizationId, skusOf(5, 'SWEPT'));
  });

  it('reads every active job and every job waiting for dispatch, past one page of 100', { timeout: 60_000 }, async () => {
    // Prepare: 130 dispatched jobs and 130 never dispatched
    const organizationId = uniqueOrganization();
    const old = new Date(Date.now() - 5 * 60_000);
    const active = await Promise.all(Array.from({ length: 130 }, () => commitQueuedJob(organizationId, { file: itemsCsv(1, 'PAGE') })));
    const waiting = await Promise.all(
      Array.from({ length: 130 }, () => commitQueuedJob(organizationId, { file: itemsCsv(1, 'WAIT'), submittedAt: old, dispatched: false })),
    );

    // Act
    const activeIds = new Set((await importJobsStore().activeJobs()).map((job) => job.id));
    const waitingIds = new Set((await importJobsStore().pendingDispatch(new Date().toISOString())).map((entry) => entry.jobId));

    // Assess
    for (const { job } of active) expect(activeIds.has(job.id)).toBe(true);
    for (const { job } of waiting) expect(waitingIds.has(job.id)).toBe(true);
    // Leave nothing for the other sweeper tests to hand to the queue.
    await Promise.all(waiting.map(({ job }) => importJobsStore().markDispatched(organizationId, job.id)));
  });

  it('fails the job a dead letter names (every attempt died), removes the letter, and never fails a job for waiting in a busy queue', async () => {
    // Prepare: two dispatched jobs submitted 40 minutes ago (a backlog); the dead-letter queue names one of them
    const organizationId = uniqueOrganization();
    const fortyMinutesAgo = new Date(Date.now() - 40 * 60_000);
    const dead = await commitQueuedJob(organizationId, { file: itemsCsv(3, 'DEAD'), submittedAt: fortyMinutesAgo });
    const waiting = await commitQueuedJob(organizationId, { file: itemsCsv(3, 'WAITING'), submittedAt: fortyMinutesAgo });
    const sqs = new SQSClient({});
    const deadLetterQueueUrl = process.env[IMPORT_DLQ_ENV_VAR];
    await sqs.send(new SendMessageCommand({ QueueUrl: deadLetterQueueUrl, MessageBody: jobMessage(organizationId, dead.job.id) }));

    // Act
    await sweepHandler();

    // Assess
    const failed = await storedJob(organizationId, dead.job.id);
    expect(failed.status).toBe('failed');
    expect(failed.failure).toMatchObject({ code: 'processing-error' });
    expect((await storedJob(organizationId, waiting.job.id)).status).toBe('queued');
    expect((await importJobsStore().activeJobs()).map((job) => job.id)).not.toContain(dead.job.id);
    expect(await auditKinds(organizationId)).toEqual(['import.failed', 'import.submitted', 'import.submitted']);
    const { Messages = [] } = await sqs.send(
      new ReceiveMessageCommand({ QueueUrl: deadLetterQueueUrl, MaxNumberOfMessages: 10, WaitTimeSeconds: 1, VisibilityTimeout: 0 }),
    );
    expect(Messages.map((message) => message.Body)).not.toContain(jobMessage(organizationId, dead.job.id));
    sqs.destroy();
  });
});
