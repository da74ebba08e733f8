import { describe, expect, it } from 'vitest';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import type { ProcessPorts } from '../../lib/imports/domain/pipeline/ports.ts';
import type { CommandWriter } from '../../lib/platform/write/ports.ts';
import { bulkChunkActions, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { createBomsDirectly } from '../support/boms.ts';
import { transactionWriter } from '../support/events.ts';
import { commitQueuedJob, csvOf, filesStore, importJobsStore, importRecords, itemsOf, storedJob } from '../support/imports.ts';

/**
 * Counts across a resume (docs/imports.md "Guarantees": processedRows = totalRows at the end of
 * every job). A grouping kind's group is one unit, handled at its first row whatever its verdict:
 * a resumed run that judges the group differently (a reference that became valid in between)
 * must neither drop its later rows nor count them twice. Real stores on the local stack; the
 * first run dies after its first chunk.
 */

function ports(writer: CommandWriter<StoreWrite> = transactionWriter()): ProcessPorts<StoreWrite> {
  return {
    jobs: importJobsStore(),
    files: filesStore(),
    records: importRecords(),
    writer,
    continueLater: () => Promise.reject(new Error('continueLater was not expected')),
    // Row errors take one action each: 8 rows per chunk.
    chunkActions: bulkChunkActions({ maxActions: 10 }),
  };
}

/** A writer that dies before its `k`-th transaction. */
function dyingBefore(k: number): CommandWriter<StoreWrite> {
  const real = transactionWriter();
  let transactions = 0;
  return {
    async run(context, build, respond) {
      transactions += 1;
      if (transactions === k) throw new Error('simulated crash before commit');
      return real.run(context, build, respond);
    },
  };
}

async function finish(organizationId: string, file: string, kind: string): Promise<void> {
  const { job } = await commitQueuedJob(organizationId, { kind, duplicateStrategy: 'fail', file });
  expect(await new ImportJobProcessor(ports()).process(organizationId, job.id, () => 60_000)).toBe('finished');
}

describe('a group whose verdict changes between two runs of its job', () => {
  it('is counted whole, once, at its first row: a build on rows 3 and 21 whose BOM appears after the checkpoint passed row 3', async () => {
    // Prepare: items KIT and PART, location A1; a builds file whose build G (rows 3 and 21) names
    // the BOM LATE, which does not exist yet; every other row names a BOM that never exists
    const organizationId = uniqueOrganization();
    await finish(
      organizationId,
      csvOf(
        ['sku', 'name'],
        [
          ['KIT', 'Kit'],
          ['PART', 'Part'],
        ],
      ),
      'items',
    );
    await finish(organizationId, csvOf(['code', 'name', 'type'], [['A1', 'Bin A1', 'bin']]), 'locations');
    const rows: string[][] = [];
    for (let row = 1; row <= 21; row += 1) rows.push(row === 3 || row === 21 ? ['G', 'LATE', '1', 'A1'] : [`B-${row}`, `NOPE-${row}`, '1', 'A1']);
    const { job } = await commitQueuedJob(organizationId, {
      kind: 'builds',
      duplicateStrategy: 'fail',
      file: csvOf(['buildReference', 'bomCode', 'quantity', 'locationCode'], rows),
    });

    // Act: the first run commits its first chunk (rows 1..8) and dies; then the BOM appears; a second run finishes the job
    await new ImportJobProcessor(ports(dyingBefore(2))).process(organizationId, job.id, () => 60_000).catch(() => undefined);
    const halfway = await storedJob(organizationId, job.id);
    const items = await itemsOf(organizationId, ['KIT', 'PART']);
    await createBomsDirectly(organizationId, [
      {
        code: 'LATE',
        name: 'Late',
        targetItemId: items.get('KIT')?.record.id ?? '',
        components: [{ itemId: items.get('PART')?.record.id ?? '', quantity: 1 }],
      },
    ]);
    const outcome = await new ImportJobProcessor(ports()).process(organizationId, job.id, () => 60_000);

    // Assess: the checkpoint had passed row 3 but not row 21; every row is counted once in the end
    expect(halfway.checkpoint).toBeGreaterThanOrEqual(3);
    expect(halfway.checkpoint).toBeLessThan(21);
    expect(outcome).toBe('finished');
    const stored = await storedJob(organizationId, job.id);
    expect(stored.counts).toEqual({ totalRows: 21, processedRows: 21, created: 0, updated: 0, skipped: 0, failed: 21 });
    const errors = await importJobsStore().listRowErrors(organizationId, job.id, undefined, 100);
    expect(errors.errors.map((error) => error.rowNumber)).toEqual(rows.map((_, index) => index + 1));
    expect(errors.errors.filter((error) => error.rowNumber === 3 || error.rowNumber === 21).map((error) => error.code)).toEqual(['unknown-bom', 'unknown-bom']);
  });
});

describe('a continuation of a stock file', () => {
  it('reads the references of its rows a window at a time: an invocation that stops early read only the first window', { timeout: 120_000 }, async () => {
    // Prepare: 300 items and a location; 300 adjustments, one per item; windows of 100 rows
    const organizationId = uniqueOrganization();
    const skus = Array.from({ length: 300 }, (_, index) => `WIN-${index}`);
    await finish(
      organizationId,
      csvOf(
        ['sku', 'name'],
        skus.map((code) => [code, code]),
      ),
      'items',
    );
    await finish(organizationId, csvOf(['code', 'name', 'type'], [['W1', 'Bin W1', 'bin']]), 'locations');
    const { job } = await commitQueuedJob(organizationId, {
      kind: 'stock-adjustments',
      duplicateStrategy: 'fail',
      file: csvOf(
        ['reference', 'sku', 'locationCode', 'quantityDelta'],
        skus.map((code, index) => [`A-${index}`, code, 'W1', '2']),
      ),
    });
    const records = importRecords();
    const itemKeysRead: string[] = [];
    let transactions = 0;
    const real = transactionWriter();
    const counting: ProcessPorts<StoreWrite> = {
      ...ports({ run: (context, build, respond) => ((transactions += 1), real.run(context, build, respond)) }),
      records: {
        getByNaturalKeys: (organization, entity, keys) => {
          if (entity === 'item') itemKeysRead.push(...keys);
          return records.getByNaturalKeys(organization, entity, keys);
        },
        getItemsByIds: (organization, ids) => records.getItemsByIds(organization, ids),
        writesOf: (organization, write) => records.writesOf(organization, write),
        stockRecordsAt: (organization, places) => records.stockRecordsAt(organization, places),
      },
      chunkActions: bulkChunkActions(),
      referenceWindowRows: 100,
      continueLater: async () => undefined,
    };

    // Act: the first invocation runs out of time after 2 chunks; the second finishes the job
    const first = await new ImportJobProcessor(counting).process(organizationId, job.id, () => (transactions >= 2 ? 0 : 60_000));
    const readByFirst = itemKeysRead.length;
    const second = await new ImportJobProcessor(counting).process(organizationId, job.id, () => 60_000);

    // Assess
    expect(first).toBe('continued');
    expect(readByFirst).toBe(100);
    expect(second).toBe('finished');
    expect(new Set(itemKeysRead).size).toBe(300);
    const stored = await storedJob(organizationId, job.id);
    expect(stored.counts).toEqual({ totalRows: 300, processedRows: 300, created: 300, updated: 0, skipped: 0, failed: 0 });
  });
});
