import { randomUUID } from 'node:crypto';
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { handler as importHandler } from '../../functions/workers/process-import-jobs.ts';
import { exportPorts, handler } from '../../functions/workers/process-export-jobs.ts';
import { sequenceOfEventId } from '../../lib/platform/events/event-id.ts';
import type { ExportJobState } from '../../lib/exports/domain/job.ts';
import { ExportProcessor, type ExportProcessPorts } from '../../lib/exports/domain/process-export.ts';
import { ExportSubmitter } from '../../lib/exports/domain/submit.ts';
import type { StockRecord } from '../../lib/inventory/domain/stock.ts';
import { ExportFilesStore } from '../../lib/exports/store/export-files.ts';
import { ExportJobsStore } from '../../lib/exports/store/export-jobs-store.ts';
import { InventoryReadStore } from '../../lib/inventory/store/inventory-reads.ts';
import { BUCKET_ENV_VAR, EXPORT_QUEUE } from '../../lib/platform/storage/tables.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { commitQueuedJob, csvOf, feedOf, filesStore, jobMessage, sqsEvent, sqsRecord, workerContext } from '../support/imports.ts';

/**
 * The export worker on the local stack (docs/exports.md "Guarantees"): its SQS handler invoked
 * DIRECTLY, and its processor with the real stores and faults injected (a crash between a
 * part's upload and its checkpoint, a time budget that ends after every part), never through the
 * queue, so the running server's poller does not race the tests. Then the snapshot property: a
 * stock-records export spanning many invocations while random stock writes commit, whose file
 * plus the deltas of every later event equals the stock afterwards, records at 0 included, and
 * whose rows carry each record's updatedAt as of asOfEventId.
 */

const jobs = () => new ExportJobsStore(tableName('inventory'));
const files = () => new ExportFilesStore(process.env[BUCKET_ENV_VAR] ?? '');
const inventory = () => new InventoryReadStore(tableName('inventory'));

/** Runs an import of `csv` through the import worker, as its queue would. */
async function importNow(organizationId: string, kind: string, csv: string): Promise<void> {
  const { job } = await commitQueuedJob(organizationId, { kind, duplicateStrategy: 'fail', file: csv });
  await importHandler(sqsEvent(sqsRecord(jobMessage(organizationId, job.id))), workerContext());
}

/** An organization with `skus` items at 3 locations, stocked: `skus × 3` stock records. */
async function stockedOrganization(skus: number): Promise<string> {
  const organizationId = uniqueOrganization();
  const names = Array.from({ length: skus }, (_, index) => `S-${String(index).padStart(3, '0')}`);
  await importNow(
    organizationId,
    'items',
    csvOf(
      ['sku', 'name'],
      names.map((sku) => [sku, `=${sku}`]),
    ),
  );
  await importNow(
    organizationId,
    'locations',
    csvOf(
      ['code', 'name'],
      [
        ['L1', 'One'],
        ['L2', 'Two'],
        ['L3', 'Three'],
      ],
    ),
  );
  const rows = names.flatMap((sku, index) => ['L1', 'L2', 'L3'].map((code, at) => [`INIT-${sku}-${code}`, sku, code, String(index + at + 1)]));
  await importNow(organizationId, 'stock-adjustments', csvOf(['reference', 'sku', 'locationCode', 'quantityDelta'], rows));
  return organizationId;
}

/** Commits an export job as submission does, without sending it to the queue. */
async function queuedExport(organizationId: string, kind: string, filters: Record<string, unknown> = {}): Promise<ExportJobState> {
  const plan = new ExportSubmitter<StoreWrite>({ jobs: jobs(), queue: { send: async () => undefined } }).prepare(organizationId, {
    kind,
    format: 'csv',
    filters,
  });
  await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'export-tests' }, traceId: null }, async () => plan);
  return plan.result;
}

/** A processor on the real stores with small parts (one page each) and optional overrides. */
function smallPartProcessor(overrides: Partial<ExportProcessPorts<StoreWrite>> = {}, handOffs: string[] = []): ExportProcessor<StoreWrite> {
  return new ExportProcessor<StoreWrite>({
    ...exportPorts,
    partBytes: 1,
    pageSize: 4,
    continueLater: async (message) => void handOffs.push(message.jobId),
    ...overrides,
  });
}

/** A clock that has time for `parts` parts per invocation, then runs out. */
function budgetOf(parts: number): () => number {
  let looks = 0;
  // The first look is the budget's fair-run check; each later one precedes a part.
  return () => (looks++ <= parts ? 120_000 : 0);
}

async function fileRows(job: ExportJobState): Promise<Record<string, string>[]> {
  const body = await filesStore().open(job.objectKey);
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk));
  return parse(Buffer.concat(chunks).toString('utf8'), { columns: true }) as Record<string, string>[];
}

async function allStock(organizationId: string): Promise<StockRecord[]> {
  const records: StockRecord[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await inventory().stockRecords(organizationId, {}, after, 200);
    records.push(...page.items);
    if (!page.more || page.last === undefined) return records;
    after = page.last;
  }
}

async function finished(organizationId: string, jobId: string): Promise<ExportJobState> {
  const job = await jobs().get(organizationId, jobId);
  if (!job) throw new Error(`no export ${jobId}`);
  return job;
}

describe('export worker faults', () => {
  it('a crash between a part’s upload and its checkpoint, then a redelivery: one complete file, no row twice', { timeout: 120_000 }, async () => {
    // Prepare
    const organizationId = await stockedOrganization(6);
    const job = await queuedExport(organizationId, 'stock-records');
    let uploads = 0;
    const real = files();
    const crashing = smallPartProcessor({
      files: {
        ...real,
        createUpload: (key, type) => real.createUpload(key, type),
        completeUpload: (key, id, parts) => real.completeUpload(key, id, parts),
        abortUpload: (key, id) => real.abortUpload(key, id),
        digest: (key) => real.digest(key),
        // The third part reaches S3, then the worker dies before its checkpoint commits.
        uploadPart: async (key, id, number, body) => {
          const etag = await real.uploadPart(key, id, number, body);
          uploads += 1;
          if (uploads === 3) throw new Error('killed after the upload of part 3');
          return etag;
        },
      },
    });

    // Act
    await expect(crashing.process(organizationId, job.id, () => 120_000)).rejects.toThrow('killed');
    const midway = await finished(organizationId, job.id);
    await smallPartProcessor().process(organizationId, job.id, () => 120_000);

    // Assess
    const done = await finished(organizationId, job.id);
    expect(midway.progress?.parts).toHaveLength(2);
    expect(done.status).toBe('succeeded');
    const rows = await fileRows(done);
    const ids = rows.map((row) => row.stockRecordId);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual((await allStock(organizationId)).map((record) => record.id).sort());
    expect(done.rowCount).toBe(18);
  });

  it('continues across invocations with a short time budget: one complete file in order, every hand-off counted', { timeout: 120_000 }, async () => {
    // Prepare
    const organizationId = await stockedOrganization(5);
    const job = await queuedExport(organizationId, 'stock-records');
    const handOffs: string[] = [];
    const processor = smallPartProcessor({}, handOffs);

    // Act
    let invocations = 0;
    while ((await finished(organizationId, job.id)).status !== 'succeeded' && invocations < 50) {
      await processor.process(organizationId, job.id, budgetOf(1));
      invocations += 1;
    }

    // Assess
    const done = await finished(organizationId, job.id);
    const rows = await fileRows(done);
    expect(done.status).toBe('succeeded');
    expect(invocations).toBeGreaterThan(3);
    expect(handOffs).toHaveLength(invocations - 1);
    expect(rows.map((row) => row.stockRecordId)).toEqual((await allStock(organizationId)).map((record) => record.id));
  });

  it(
    'a time budget that runs out in the middle of a part: no page read late, a short part checkpointed, and the same file as an uninterrupted run',
    { timeout: 120_000 },
    async () => {
      // Prepare: 45 records, pages of 4 rows, parts of 1,200 bytes (3–4 pages), a cut part kept from 400 bytes
      const organizationId = await stockedOrganization(15);
      const sizes = { partBytes: 1200, minPartBytes: 400 };
      const reference = await queuedExport(organizationId, 'stock-records');
      await smallPartProcessor(sizes).process(organizationId, reference.id, () => 3_600_000);
      const job = await queuedExport(organizationId, 'stock-records');
      // Simulated time: each page takes 10 s of an invocation of 45 s
      let elapsed = 0;
      let pagesReadLate = 0;
      const timedSources = {
        open: async (opened: ExportJobState, asOfSequence: number) => {
          const source = await exportPorts.sources.open(opened, asOfSequence);
          return {
            ...source,
            page: (after: string | undefined, limit: number) => {
              if (45_000 - elapsed < 10_000) pagesReadLate += 1;
              elapsed += 10_000;
              return source.page(after, limit);
            },
          };
        },
      };
      const handOffs: string[] = [];
      const processor = smallPartProcessor({ ...sizes, sources: timedSources }, handOffs);

      // Act
      let invocations = 0;
      while ((await finished(organizationId, job.id)).status !== 'succeeded' && invocations < 30) {
        elapsed = 0;
        await processor.process(organizationId, job.id, () => 45_000 - elapsed);
        invocations += 1;
      }

      // Assess
      const done = await finished(organizationId, job.id);
      expect(done.status).toBe('succeeded');
      expect(pagesReadLate).toBe(0);
      expect(invocations).toBeGreaterThan(2);
      expect(handOffs).toHaveLength(invocations - 1);
      // Parts cut short by the budget: more of them than the uninterrupted run wrote.
      expect(done.progress!.parts.length).toBeGreaterThan((await finished(organizationId, reference.id)).progress!.parts.length);
      const body = async (finishedJob: ExportJobState) => {
        const chunks: Buffer[] = [];
        for await (const chunk of await filesStore().open(finishedJob.objectKey)) chunks.push(Buffer.from(chunk));
        return Buffer.concat(chunks).toString('utf8');
      };
      expect(await body(done)).toBe(await body(await finished(organizationId, reference.id)));
      expect(done.sha256).toBe((await finished(organizationId, reference.id)).sha256);
    },
  );

  it('a redelivered message of a finished export changes nothing; the handler reports no failure', { timeout: 120_000 }, async () => {
    // Prepare
    const organizationId = await stockedOrganization(2);
    const job = await queuedExport(organizationId, 'items');
    const deliver = () =>
      handler(
        sqsEvent({ ...sqsRecord(jobMessage(organizationId, job.id)), eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${EXPORT_QUEUE.id}` }),
        workerContext(EXPORT_QUEUE.workerTimeoutSeconds * 1000),
      );

    // Act
    const first = await deliver();
    const afterFirst = await finished(organizationId, job.id);
    const second = await deliver();

    // Assess
    expect(first.batchItemFailures).toEqual([]);
    expect(second.batchItemFailures).toEqual([]);
    expect(await finished(organizationId, job.id)).toEqual(afterFirst);
    expect((await fileRows(afterFirst)).map((row) => row.name)).toEqual(["'=S-000", "'=S-001"]);
    const completions = (await feedOf(organizationId)).filter((event) => event.type === 'export.completed');
    expect(completions).toHaveLength(1);
  });
});

describe('running exports per organization on the real stores', () => {
  it(
    'starts 2 of one organization’s 4 exports, leaves 2 queued for later, runs another organization’s export to its end meanwhile, and starts a waiting one once a slot frees',
    { timeout: 120_000 },
    async () => {
      // Prepare
      const busy = await stockedOrganization(2);
      const other = await stockedOrganization(2);
      const busyJobs = [
        await queuedExport(busy, 'stock-records'),
        await queuedExport(busy, 'stock-records'),
        await queuedExport(busy, 'stock-records'),
        await queuedExport(busy, 'stock-records'),
      ];
      const otherJob = await queuedExport(other, 'stock-records');
      const waiting: string[] = [];
      const processor = smallPartProcessor({ retryLater: async (message) => void waiting.push(message.jobId) });

      // Act: each busy export gets an invocation with time for one part
      const outcomes = [];
      for (const job of busyJobs) outcomes.push(await processor.process(busy, job.id, budgetOf(1)));
      const otherOutcome = await processor.process(other, otherJob.id, () => 120_000);
      const statusesMeanwhile = await Promise.all(busyJobs.map(async (job) => (await finished(busy, job.id)).status));
      await processor.process(busy, busyJobs[0]!.id, () => 120_000);
      const afterSlotFreed = await processor.process(busy, busyJobs[2]!.id, budgetOf(1));

      // Assess
      expect(outcomes).toEqual(['continued', 'continued', 'waiting', 'waiting']);
      expect(waiting).toEqual([busyJobs[2]!.id, busyJobs[3]!.id]);
      expect(statusesMeanwhile).toEqual(['processing', 'processing', 'queued', 'queued']);
      expect(otherOutcome).toBe('finished');
      expect((await finished(other, otherJob.id)).status).toBe('succeeded');
      expect((await finished(busy, busyJobs[0]!.id)).status).toBe('succeeded');
      expect(afterSlotFreed).toBe('continued');
      expect((await finished(busy, busyJobs[2]!.id)).status).toBe('processing');
      expect((await finished(busy, busyJobs[3]!.id)).status).toBe('queued');
    },
  );
});

/** A deterministic generator (mulberry32), so a failing seed can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}

describe('exact stock-records snapshot while stock moves', () => {
  const SEEDS = [1, 2, 3, 4, 5, 6];

  it.each(SEEDS)(
    'seed %i: the file plus the deltas of every event after asOfEventId equals the stock afterwards, zeros included; updatedAt as of asOfEventId',
    { timeout: 180_000 },
    async (seed) => {
      // Prepare
      const next = random(seed);
      const skus = 4;
      const organizationId = await stockedOrganization(skus);
      const job = await queuedExport(organizationId, 'stock-records');
      const processor = smallPartProcessor();

      // Act: the export, an invocation per part, while batches of random adjustments commit
      const exporting = (async () => {
        for (let invocation = 0; invocation < 60 && (await finished(organizationId, job.id)).status !== 'succeeded'; invocation += 1) {
          await processor.process(organizationId, job.id, budgetOf(1));
        }
      })();
      const writing = (async () => {
        for (let batch = 0; batch < 4; batch += 1) {
          const rows = Array.from({ length: 1 + Math.floor(next() * 5) }, (_, index) => {
            const sku = `S-${String(Math.floor(next() * (skus + 1))).padStart(3, '0')}`;
            const code = `L${1 + Math.floor(next() * 3)}`;
            return [`R-${seed}-${batch}-${index}-${randomUUID().slice(0, 6)}`, sku, code, String(Math.floor(next() * 9) - 3)];
          });
          await importNow(organizationId, 'stock-adjustments', csvOf(['reference', 'sku', 'locationCode', 'quantityDelta'], rows));
        }
      })();
      await Promise.all([exporting, writing]);

      // Assess
      const done = await finished(organizationId, job.id);
      expect(done.status).toBe('succeeded');
      const rows = await fileRows(done);
      const state = new Map(rows.map((row) => [row.stockRecordId ?? '', Number(row.quantity)] as [string, number]));
      const asOf = sequenceOfEventId(done.asOfEventId ?? '') ?? 0;
      const stockChanges = (await feedOf(organizationId)).filter((event) => event.type === 'stock.changed');
      const later = stockChanges.filter((event) => (sequenceOfEventId(event.id) ?? 0) > asOf);
      // The writes ran while the export did: the property is exercised, not trivially true.
      expect(later.length).toBeGreaterThan(0);
      for (const event of later) {
        const data = event.data as { stockRecordId: string; delta: number };
        state.set(data.stockRecordId, Math.round(((state.get(data.stockRecordId) ?? 0) + data.delta) * 1e6) / 1e6);
      }
      // Exact, zeros included: every record of the file existed at asOfEventId, and the feed brings the others.
      const now = (await allStock(organizationId)).map((record) => [record.id, record.onHand] as [string, number]);
      expect(Object.fromEntries([...state].sort())).toEqual(Object.fromEntries(now.sort()));
      // Each row's updatedAt is its record's at asOfEventId: the time of its last change up to it.
      const updatedAtAsOf = new Map<string, string>();
      for (const event of stockChanges)
        if ((sequenceOfEventId(event.id) ?? 0) <= asOf) updatedAtAsOf.set((event.data as { stockRecordId: string }).stockRecordId, event.occurredAt);
      expect(Object.fromEntries(rows.map((row) => [row.stockRecordId, row.updatedAt]))).toEqual(
        Object.fromEntries(rows.map((row) => [row.stockRecordId, updatedAtAsOf.get(row.stockRecordId ?? '')])),
      );
    },
  );
});
