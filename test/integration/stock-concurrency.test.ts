import { describe, expect, it } from 'vitest';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import type { DuplicateStrategy } from '../../lib/imports/domain/types.ts';
import { ApiError } from '../../lib/platform/core/errors.ts';
import type { CommandWriter } from '../../lib/platform/write/ports.ts';
import { bulkChunkActions, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { transactionWriter } from '../support/events.ts';
import { commitQueuedJob, feedOf, filesStore, importJobsStore, importRecords, itemsOf, locationsOf, storedJob } from '../support/imports.ts';
import { expectLedgerMatches, stockAt } from '../support/stock.ts';

/**
 * Two adjustment jobs of 2,000 rows each on the same ten stock records, run at the same time
 * (docs/inventory.md "Concurrency"): no update is lost, no stock goes below zero, every row that
 * failed failed for lack of stock, and the ledger, the item totals and the feed agree.
 */

const ITEMS = 10;
const START = 1000;
const ROWS_PER_RECORD = 200;
const REORDER_POINT = 50;

/** Chunks that lost a race to another writer (and were decided again). */
let conflicts = 0;

function countingWriter(): CommandWriter<StoreWrite> {
  const real = transactionWriter();
  return {
    async run(context, build, respond) {
      try {
        return await real.run(context, build, respond);
      } catch (error) {
        if (error instanceof ApiError && error.status === 409) conflicts += 1;
        throw error;
      }
    },
  };
}

const processor = () =>
  new ImportJobProcessor({
    jobs: importJobsStore(),
    files: filesStore(),
    records: importRecords(),
    writer: countingWriter(),
    continueLater: () => Promise.reject(new Error('a job was handed on')),
    chunkActions: bulkChunkActions(),
  });

async function runJob(organizationId: string, kind: string, file: string, duplicateStrategy: DuplicateStrategy = 'fail') {
  const { job } = await commitQueuedJob(organizationId, { kind, file, duplicateStrategy });
  expect(await processor().process(organizationId, job.id, () => 600_000)).toBe('finished');
  return storedJob(organizationId, job.id);
}

const skuOf = (index: number) => `W-${index + 1}`;

/** The codes of a job's stored row errors. */
async function rowErrorCodes(organizationId: string, jobId: string): Promise<Set<string>> {
  const codes = new Set<string>();
  let after: string | undefined;
  for (;;) {
    const page = await importJobsStore().listRowErrors(organizationId, jobId, after, 500);
    for (const error of page.errors) codes.add(error.code);
    if (!page.more) return codes;
    after = page.last;
  }
}

function adjustments(prefix: string, delta: number): string {
  const lines = ['reference,sku,locationCode,quantityDelta'];
  for (let row = 0; row < ROWS_PER_RECORD; row += 1) {
    for (let item = 0; item < ITEMS; item += 1) lines.push(`${prefix}-${row},${skuOf(item)},A1,${delta}`);
  }
  return lines.join('\n') + '\n';
}

describe('two adjustment jobs on the same stock records at once', () => {
  it('never lose an update and never go negative; failed rows are exactly the ones short of stock', { timeout: 300_000 }, async () => {
    // Prepare: 1,000 of each of 10 items at A1
    const organizationId = uniqueOrganization();
    const skus = Array.from({ length: ITEMS }, (_, index) => skuOf(index));
    await runJob(organizationId, 'items', `sku,name,reorderPoint\n${skus.map((sku) => `${sku},Widget ${sku},${REORDER_POINT}`).join('\n')}\n`);
    await runJob(organizationId, 'locations', 'code,name\nA1,Bin A1\n');
    await runJob(organizationId, 'po-receipts', `poNumber,sku,locationCode,quantity\n${skus.map((sku) => `PO-1,${sku},A1,${START}`).join('\n')}\n`);
    const items = await itemsOf(organizationId, skus);
    const a1 = (await locationsOf(organizationId, ['A1'])).get('A1')?.record.id ?? '';
    const feedBefore = (await feedOf(organizationId)).length;
    // A takes 3 per row, B 4 per row: 1,400 asked of each record, 1,000 there
    const [fileA, fileB] = [adjustments('A', -3), adjustments('B', -4)];

    // Act: both jobs at the same time
    conflicts = 0;
    const [jobA, jobB] = await Promise.all([runJob(organizationId, 'stock-adjustments', fileA), runJob(organizationId, 'stock-adjustments', fileB)]);

    // Assess: they did race (chunks were decided again), every row was counted once, every failure is insufficient-stock
    expect(conflicts).toBeGreaterThan(0);
    for (const job of [jobA, jobB]) {
      expect(job.counts.totalRows).toBe(ITEMS * ROWS_PER_RECORD);
      expect(job.counts.created + job.counts.failed).toBe(ITEMS * ROWS_PER_RECORD);
      expect([...(await rowErrorCodes(organizationId, job.id))]).toEqual(job.counts.failed > 0 ? ['insufficient-stock'] : []);
    }
    expect(jobA.counts.failed + jobB.counts.failed).toBeGreaterThan(0);
    const totals = await importRecords().getByNaturalKeys(
      organizationId,
      'item-stock',
      [...items.values()].map(({ record }) => record.id),
    );
    let movedA = 0;
    let movedB = 0;
    for (const sku of skus) {
      const itemId = items.get(sku)?.record.id ?? '';
      const record = await stockAt(organizationId, itemId, a1, null);
      const ledger = await expectLedgerMatches(organizationId, record);
      const applied = (prefix: string) => ledger.filter((entry) => entry.reference?.startsWith(`${prefix}-`)).length;
      const [appliedA, appliedB] = [applied('A'), applied('B')];
      movedA += appliedA;
      movedB += appliedB;
      // Nothing lost: what is left is what both jobs' applied rows left
      expect(record.onHand, sku).toBe(START - 3 * appliedA - 4 * appliedB);
      expect(record.onHand).toBeGreaterThanOrEqual(0);
      // A row failed only when the stock could not cover it (stock only went down from then on)
      if (appliedA < ROWS_PER_RECORD) expect(record.onHand, `${sku}: an A row failed`).toBeLessThan(3);
      if (appliedB < ROWS_PER_RECORD) expect(record.onHand, `${sku}: a B row failed`).toBeLessThan(4);
      expect((totals.get(itemId)?.record as { onHand: number } | undefined)?.onHand).toBe(record.onHand);
    }
    expect([movedA, movedB]).toEqual([jobA.counts.created, jobB.counts.created]);
    // One stock.changed per applied row, and one low-stock per item (stock only went down)
    const events = (await feedOf(organizationId)).slice(feedBefore);
    expect(events.filter((event) => event.type === 'stock.changed')).toHaveLength(movedA + movedB);
    expect(
      events
        .filter((event) => event.type === 'low-stock')
        .map((event) => event.data.sku)
        .sort(),
    ).toEqual([...skus].sort());

    // Act again: the same file once more applies nothing twice; what failed fails again
    const feedLength = (await feedOf(organizationId)).length;
    const again = await runJob(organizationId, 'stock-adjustments', fileA, 'skip');
    expect([again.counts.skipped, again.counts.failed]).toEqual([jobA.counts.created, jobA.counts.failed]);
    expect((await feedOf(organizationId)).length).toBe(feedLength);
  });
});

describe('a decision that rests on stock it only read', () => {
  it('is decided again when another job changes that stock before it commits: a matching count still sets on-hand', async () => {
    // Prepare: 10 W at A1; a count of 10 that, just before it commits, loses the race to a -3 adjustment
    const organizationId = uniqueOrganization();
    await runJob(organizationId, 'items', 'sku,name\nW,Widget\n');
    await runJob(organizationId, 'locations', 'code,name\nA1,Bin A1\n');
    await runJob(organizationId, 'stock-adjustments', 'reference,sku,locationCode,quantityDelta\nSTART,W,A1,10\n');
    const { job: count } = await commitQueuedJob(organizationId, {
      kind: 'stock-counts',
      file: 'countReference,locationCode,sku,countedQuantity\nC-1,A1,W,10\n',
      duplicateStrategy: 'fail',
    });
    const real = transactionWriter();
    let raced = false;
    const racingWriter: CommandWriter<StoreWrite> = {
      async run(context, build, respond) {
        if (!raced) {
          raced = true;
          await runJob(organizationId, 'stock-adjustments', 'reference,sku,locationCode,quantityDelta\nLOSS,W,A1,-3\n');
        }
        return real.run(context, build, respond);
      },
    };
    const ports = {
      jobs: importJobsStore(),
      files: filesStore(),
      records: importRecords(),
      writer: racingWriter,
      continueLater: () => Promise.reject(new Error('handed on')),
      chunkActions: bulkChunkActions(),
    };

    // Act
    expect(await new ImportJobProcessor(ports).process(organizationId, count.id, () => 60_000)).toBe('finished');

    // Assess: the count was decided again on the 7 left, and set on-hand to what was counted
    const items = await itemsOf(organizationId, ['W']);
    const a1 = (await locationsOf(organizationId, ['A1'])).get('A1')?.record.id ?? '';
    const record = await stockAt(organizationId, items.get('W')?.record.id ?? '', a1, null);
    expect(record.onHand).toBe(10);
    await expectLedgerMatches(organizationId, record);
    const completed = (await feedOf(organizationId)).filter((event) => event.type === 'count.completed');
    expect(completed.map((event) => event.data.lines)).toEqual([[expect.objectContaining({ expected: 7, counted: 10, delta: 3 })]]);
  });
});
