import { describe, expect, it } from 'vitest';
import { ApiError } from '../../../lib/platform/core/errors.ts';
import { itemsKind } from '../../../lib/imports/domain/items-kind.ts';
import { locationsKind } from '../../../lib/imports/domain/locations-kind.ts';
import { MAX_HANDOFFS_WITHOUT_PROGRESS } from '../../../lib/platform/jobs/hand-off.ts';
import { MIN_FAIR_RUN_MS, TIME_MARGIN_MS } from '../../../lib/platform/jobs/time-budget.ts';
import { MAX_STORED_ROW_ERRORS } from '../../../lib/imports/domain/job.ts';
import { ImportJobProcessor } from '../../../lib/imports/domain/pipeline/process-job.ts';
import type { Item } from '../../../lib/inventory/domain/item.ts';
import type { Location } from '../../../lib/inventory/domain/location.ts';
import { HARNESS_NOW, importHarness } from '../../support/import-harness.ts';
import { eventEnvelope } from '../../../lib/platform/events/batches.ts';
import { newEventId } from '../../../lib/platform/events/event-id.ts';
import { eventBatchItems } from '../../../lib/platform/dynamo/event-batches.ts';

/**
 * The import pipeline's chunking, row-error cap, time budget and exactly-once verdicts, on
 * in-memory ports (test/support/import-harness.ts). The same paths run against DynamoDB Local
 * in test/integration/import-worker.test.ts.
 */

const PLENTY = () => 60_000;

function itemsFile(rows: string[][]): string {
  return `sku,name,reorderPoint\n${rows.map((row) => row.join(',')).join('\n')}\n`;
}

function items(file: string, chunkActions?: number) {
  return importHarness<Item>({ kind: itemsKind as never, file, keyOf: (item) => item.sku, ...(chunkActions ? { chunkActions } : {}) });
}

describe('chunks', () => {
  it("fill each transaction up to its room: a new item's record takes 1 of 98 actions, the chunk's item.created events 1 together (one event batch)", async () => {
    // Prepare
    const run = items(itemsFile(Array.from({ length: 100 }, (_, index) => [`S-${index}`, `Item ${index}`, ''])));

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess
    expect(outcome).toBe('finished');
    expect(run.checkpoints().map((write) => [write.from, write.to])).toEqual([
      [0, 97],
      [97, 100],
    ]);
    expect(run.job().counts).toEqual({ totalRows: 100, processedRows: 100, created: 100, updated: 0, skipped: 0, failed: 0 });
  });

  it('also stop at the byte budget: a chunk never grows past the transaction size the store allows', async () => {
    // Prepare: items with 1,900-character descriptions, a budget of 10 KB
    const description = 'd'.repeat(1900);
    const file = `sku,name,description\n${Array.from({ length: 20 }, (_, index) => `S-${index},Item ${index},${description}`).join('\n')}\n`;
    const run = items(file);
    run.ports.chunkBytes = 10_000;
    run.ports.writeBytes = (write) => Buffer.byteLength(JSON.stringify(write));

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess: a row's record (~2 KB) and its item.created event (~2 KB) take ~4 KB, so 2 rows fit 10 KB
    expect(outcome).toBe('finished');
    const sizes = run.checkpoints().map((write) => write.to - write.from);
    expect(sizes.every((size) => size === 2)).toBe(true);
    expect(run.job().counts).toMatchObject({ processedRows: 20, created: 20 });
  });

  it('measure the byte budget in UTF-8 bytes, as the store counts them: multi-byte text never overflows a transaction', async () => {
    // Prepare: descriptions of 1,900 '€' (3 bytes each in UTF-8, 1 UTF-16 unit), a budget of 17 KB;
    // the writer measures what each transaction really carries
    const description = '€'.repeat(1900);
    const file = `sku,name,description\n${Array.from({ length: 6 }, (_, index) => `S-${index},Item ${index},${description}`).join('\n')}\n`;
    const run = items(file);
    const utf8 = (value: unknown) => Buffer.byteLength(JSON.stringify(value));
    run.ports.chunkBytes = 17_000;
    run.ports.writeBytes = utf8;
    const committedBytes: number[] = [];
    const { writer } = run.ports;
    run.ports.writer = {
      run: (context, build) =>
        writer.run(context, async () => {
          const plan = await build();
          const rows = plan.writes.filter((write) => write.kind !== 'checkpoint');
          committedBytes.push(rows.reduce((sum, write) => sum + utf8(write), 0) + plan.events.reduce((sum, event) => sum + utf8(event), 0));
          return plan;
        }),
    };

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess: a row's record (~6 KB) and its item.created event (~6 KB) take ~12 KB in UTF-8, so
    // one row per chunk (counted in UTF-16 units, the event would seem ~2 KB and two rows, ~16 KB, would fit)
    expect(outcome).toBe('finished');
    expect(committedBytes.every((bytes) => bytes <= 17_000)).toBe(true);
    expect(run.checkpoints().map((write) => write.to - write.from)).toEqual([1, 1, 1, 1, 1, 1]);
    expect(run.job().counts).toMatchObject({ processedRows: 6, created: 6 });
  });

  it("count a chunk's events as the event batch items the store will write, size splits included", async () => {
    // Prepare: 2,000-character descriptions make each item.created event ~2.3 KB, so ~150 fill one
    // batch item (350,000 bytes); a room of 400 actions holds ~397 records and their events' 3 items
    const description = 'd'.repeat(2000);
    const file = `sku,name,description\n${Array.from({ length: 500 }, (_, index) => `S-${index},Item ${index},${description}`).join('\n')}\n`;
    const run = items(file, 400);
    const chunks: Array<{ records: number; eventItems: number }> = [];
    const { writer } = run.ports;
    run.ports.writer = {
      run: (context, build) =>
        writer.run(context, async () => {
          const plan = await build();
          const envelopes = plan.events.map((draft, index) => eventEnvelope(draft, context.organizationId, newEventId(index + 1), HARNESS_NOW));
          chunks.push({
            records: plan.writes.filter((write) => write.kind !== 'checkpoint').length,
            eventItems: eventBatchItems(envelopes, 1, new Date(HARNESS_NOW)).length,
          });
          return plan;
        }),
    };

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess: every chunk fits its room; the first is full (one more row would not fit) and its events split
    expect(outcome).toBe('finished');
    expect(chunks.every((chunk) => chunk.records + chunk.eventItems <= 400)).toBe(true);
    expect(chunks[0]?.eventItems).toBeGreaterThan(1);
    expect((chunks[0]?.records ?? 0) + (chunks[0]?.eventItems ?? 0)).toBeGreaterThanOrEqual(399);
    expect(run.job().counts).toMatchObject({ processedRows: 500, created: 500 });
  });

  it('fail a unit too big for any transaction with the row error too-large, and carry on', async () => {
    // Prepare: room for one action, but a new item needs two
    const run = items(itemsFile([['S-1', 'One', '']]), 1);

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess
    expect(outcome).toBe('finished');
    expect(run.job()).toMatchObject({ status: 'completed_with_errors', counts: { totalRows: 1, processedRows: 1, failed: 1 } });
    expect(run.rowErrors.map(({ rowNumber, code, message }) => ({ rowNumber, code, message }))).toEqual([
      { rowNumber: 1, code: 'too-large', message: expect.stringMatching(/needs 2 storage actions; at most 1/) },
    ]);
  });
});

describe('the row-error cap', () => {
  it(`stores the first ${MAX_STORED_ROW_ERRORS} errors in row order, counts every failed row and the errors not stored`, async () => {
    // Prepare: 6,000 rows, each without a name and with a negative reorderPoint (2 errors each)
    const rowCount = 6000;
    const run = items(itemsFile(Array.from({ length: rowCount }, (_, index) => [`S-${index}`, '', '-1'])));

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess: 10,000 errors stored (rows 1..5000), 2,000 counted only
    expect(outcome).toBe('finished');
    const job = run.job();
    expect(job.status).toBe('completed_with_errors');
    expect(job.counts).toEqual({ totalRows: rowCount, processedRows: rowCount, created: 0, updated: 0, skipped: 0, failed: rowCount });
    expect({ stored: job.storedErrors, unstored: job.unstoredErrors }).toEqual({
      stored: MAX_STORED_ROW_ERRORS,
      unstored: 2 * rowCount - MAX_STORED_ROW_ERRORS,
    });
    expect(run.rowErrors).toHaveLength(MAX_STORED_ROW_ERRORS);
    expect(run.rowErrors.slice(0, 2).map((error) => [error.rowNumber, error.index, error.column])).toEqual([
      [1, 0, 'name'],
      [1, 1, 'reorderPoint'],
    ]);
    expect(run.rowErrors.at(-1)?.rowNumber).toBe(MAX_STORED_ROW_ERRORS / 2);
    // Writes are bounded: full transactions of 98 errors until the cap; the chunk that reaches it
    // carries every remaining row (1,000 and more) with no further write. Then the finish.
    const fullChunks = Math.floor(MAX_STORED_ROW_ERRORS / 98);
    expect(run.transactions).toHaveLength(fullChunks + 2);
    const lastChunk = run.transactions.at(-2) ?? [];
    expect(lastChunk.filter((write) => write.kind === 'row-error')).toHaveLength(MAX_STORED_ROW_ERRORS - 98 * fullChunks);
    expect(run.checkpoints().at(-1)).toMatchObject({ to: rowCount });
  });
});

describe('the time budget', () => {
  it('hands on a job picked up with too little time, without counting that against it', async () => {
    // Prepare
    const run = items(itemsFile([['S-1', 'One', '']]));

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', () => TIME_MARGIN_MS - 1, 2);

    // Assess
    expect(outcome).toBe('continued');
    expect(run.handoffs).toEqual([{ organizationId: 'org_1', jobId: 'imp_1', handoffsWithoutProgress: 2 }]);
    expect(run.job().status).toBe('queued');
  });

  it('counts an invocation that started with a fair share of time and committed nothing', async () => {
    // Prepare: the whole timeout at the start, none left after reading the file
    const run = items(itemsFile([['S-1', 'One', '']]));
    let checks = 0;

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', () => (checks++ === 0 ? MIN_FAIR_RUN_MS : 0));

    // Assess
    expect(outcome).toBe('continued');
    expect(run.handoffs).toEqual([{ organizationId: 'org_1', jobId: 'imp_1', handoffsWithoutProgress: 1 }]);
  });

  it.each([
    { phase: 'after reading the file', checksBeforeOut: 0 },
    { phase: 'after validating', checksBeforeOut: 1 },
    { phase: 'before the first chunk', checksBeforeOut: 2 },
  ])('checks the clock $phase', async ({ checksBeforeOut }) => {
    // Prepare
    const run = items(itemsFile([['S-1', 'One', '']]));
    let checks = 0;

    // Act
    // (The first look at the clock judges whether the invocation had a fair share of time.)
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', () => (checks++ <= checksBeforeOut ? 60_000 : 0));

    // Assess
    expect(outcome).toBe('continued');
    expect(run.checkpoints()).toEqual([]);
    expect(run.handoffs).toEqual([expect.objectContaining({ handoffsWithoutProgress: 1 })]);
  });

  it('hands on with the count reset once a chunk committed', async () => {
    // Prepare: 100 rows make 3 chunks; time runs out after the first
    const run = items(itemsFile(Array.from({ length: 100 }, (_, index) => [`S-${index}`, `Item ${index}`, ''])));
    let chunks = 0;
    const remaining = () => (run.checkpoints().length > chunks ? 0 : 60_000);

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', remaining, 2);
    chunks = 1;
    const resumed = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess
    expect(outcome).toBe('continued');
    expect(run.handoffs).toEqual([{ organizationId: 'org_1', jobId: 'imp_1', handoffsWithoutProgress: 0 }]);
    expect(resumed).toBe('finished');
    expect(run.job().counts).toMatchObject({ processedRows: 100, created: 100 });
  });

  it(`fails a job that made no progress in ${MAX_HANDOFFS_WITHOUT_PROGRESS} invocations in a row, instead of handing it on forever`, async () => {
    // Prepare
    const run = items(itemsFile([['S-1', 'One', '']]));

    // Act
    let checks = 0;
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', () => (checks++ === 0 ? 60_000 : 0), MAX_HANDOFFS_WITHOUT_PROGRESS - 1);

    // Assess
    expect(outcome).toBe('finished');
    expect(run.handoffs).toEqual([]);
    expect(run.job()).toMatchObject({ status: 'failed', failure: { code: 'processing-timeout' } });
  });
});

describe('row verdicts', () => {
  const parent: Location = { id: 'loc_p', code: 'P', name: 'Parent', type: 'zone', parentCode: null, createdAt: HARNESS_NOW, updatedAt: HARNESS_NOW };
  const file = 'code,name,type,parentCode\nA,a,bin,\nB,b,bin,P\nC,c,bin,\n';

  it('are taken only by the delivery whose chunk commits: one that died after validating leaves nothing behind', async () => {
    // Prepare: the first delivery judges row 2 unknown-location, then dies before its chunk commits
    const run = importHarness<Location>({ kind: locationsKind as never, file, keyOf: (location) => location.code });
    run.faults.failNextCommit = new Error('simulated crash');
    const first = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY).catch((error: Error) => error.message);
    // ...and the tenant creates location P before the message comes back
    run.stored.set('P', { record: parent, version: 1 });

    // Act
    const second = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess: the second delivery's verdict is the only one; every row counted once
    expect([first, second]).toEqual(['simulated crash', 'finished']);
    expect(run.rowErrors).toEqual([]);
    expect(run.job().counts).toEqual({ totalRows: 3, processedRows: 3, created: 3, updated: 0, skipped: 0, failed: 0 });
    expect(run.stored.get('B')?.record.parentCode).toBe('P');
  });

  it('of a delivery that lost the race to another are never committed', async () => {
    // Prepare: another delivery moves the checkpoint while this one decides
    const run = importHarness<Location>({ kind: locationsKind as never, file, keyOf: (location) => location.code });
    const original = run.ports.writer.run.bind(run.ports.writer);
    let raced = false;
    run.ports.writer.run = async (context, build, respond) => {
      if (!raced) {
        raced = true;
        run.setJob({ ...run.job(), checkpoint: 3, counts: { ...run.job().counts, processedRows: 3, created: 2, failed: 1 } });
      }
      return original(context, build, respond);
    };

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess
    expect(outcome).toBe('taken-over');
    expect(run.transactions).toEqual([]);
    expect(run.rowErrors).toEqual([]);
  });
});

describe('a chunk decided again after another writer changed its records', () => {
  it('checks cycles against the tree as the other writer left it, not as this attempt assumed it', async () => {
    // Prepare: A (root), B under A, C (root); the file moves B under C
    const location = (code: string, parentCode: string | null): Location => ({
      id: `loc_${code}`,
      code,
      name: code,
      type: 'bin',
      parentCode,
      createdAt: HARNESS_NOW,
      updatedAt: HARNESS_NOW,
    });
    const run = importHarness<Location>({
      kind: locationsKind as never,
      file: 'code,name,type,parentCode\nB,b,bin,C\n',
      keyOf: (record) => record.code,
      existing: [location('A', null), location('B', 'A'), location('C', null)],
    });
    run.setJob({ ...run.job(), duplicateStrategy: 'update' });
    const original = run.ports.writer.run.bind(run.ports.writer);
    let attempts = 0;
    run.ports.writer.run = async (context, build, respond) => {
      attempts += 1;
      if (attempts === 1) {
        // Meanwhile another writer renamed B and moved C under B: this chunk's update of B conflicts.
        run.stored.set('B', { record: { ...location('B', 'A'), name: 'renamed' }, version: 2 });
        run.stored.set('C', { record: location('C', 'B'), version: 2 });
        throw new ApiError(409, 'customer-api.write.conflict', 'Conflict');
      }
      return original(context, build, respond);
    };

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess: moving B under C would now make B its own ancestor
    expect(outcome).toBe('finished');
    expect(run.rowErrors.map((error) => [error.rowNumber, error.column, error.code])).toEqual([[1, 'parentCode', 'invalid-value']]);
    expect(run.stored.get('B')?.record.parentCode).toBe('A');
  });
});

describe('a continuation', () => {
  it('reads the references of the rows it has left only, so its cost follows what is left', async () => {
    // Prepare: 100 locations, row i under the existing parent P-i; the job is past row 80
    const location = (code: string, parentCode: string | null): Location => ({
      id: `loc_${code}`,
      code,
      name: code,
      type: 'bin',
      parentCode,
      createdAt: HARNESS_NOW,
      updatedAt: HARNESS_NOW,
    });
    const parents = Array.from({ length: 100 }, (_, index) => location(`P-${index + 1}`, null));
    const file = `code,name,type,parentCode\n${Array.from({ length: 100 }, (_, index) => `C-${index + 1},c,bin,P-${index + 1}`).join('\n')}\n`;
    const run = importHarness<Location>({ kind: locationsKind as never, file, keyOf: (record) => record.code, existing: parents });
    run.setJob({ ...run.job(), status: 'processing', checkpoint: 80, counts: { ...run.job().counts, totalRows: 100, processedRows: 80, created: 80 } });
    const requested: string[] = [];
    const { getByNaturalKeys } = run.ports.records;
    run.ports.records.getByNaturalKeys = (organizationId, entity, keys) => {
      requested.push(...[...keys].filter((key) => key.startsWith('P-')));
      return getByNaturalKeys(organizationId, entity, keys);
    };

    // Act
    const outcome = await new ImportJobProcessor(run.ports).process('org_1', 'imp_1', PLENTY);

    // Assess: the parents of rows 81..100 only, each read once
    expect(outcome).toBe('finished');
    expect(requested.sort()).toEqual(Array.from({ length: 20 }, (_, index) => `P-${index + 81}`).sort());
    expect(run.job().counts).toMatchObject({ totalRows: 100, processedRows: 100, created: 100 });
  });
});

describe('the end of a job', () => {
  it('is reported once, with the final counts, by the delivery that ended it', async () => {
    // Prepare
    const run = items(
      itemsFile([
        ['E-1', 'One', ''],
        ['', 'No sku', ''],
        ['E-3', 'Three', ''],
      ]),
    );
    const ended: { status: string; created: number; failed: number }[] = [];
    const ports = {
      ...run.ports,
      onEnded: (job: { counts: { created: number; failed: number } }, status: string) =>
        ended.push({ status, created: job.counts.created, failed: job.counts.failed }),
    };

    // Act
    const first = await new ImportJobProcessor(ports).process('org_1', 'imp_1', PLENTY);
    const redelivered = await new ImportJobProcessor(ports).process('org_1', 'imp_1', PLENTY);

    // Assess
    expect([first, redelivered]).toEqual(['finished', 'already-finished']);
    expect(ended).toEqual([{ status: 'completed_with_errors', created: 2, failed: 1 }]);
  });
});
