import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, getJob, itemsCsv, submitFile, type Job, type LocalStack } from '../local-stack.ts';
import { stockActionCounts } from '../action-counts.ts';
import { stockCountsAtTheLimit } from '../import-limits.ts';
import { batchWriteAll } from '../raw-loader.ts';
import { newMovementId } from '../../lib/inventory/domain/stock.ts';
import { median, type BenchContext, type Measure, type Suite } from './suite.ts';

/**
 * Import throughput (docs/imports.md, docs/inventory.md "stock-adjustments"): a file submitted
 * over HTTP to the shared in-memory `npm start` and polled until it has finished, next to a raw
 * BatchWriteItem loader (bench/raw-loader.ts) writing the same rows' records, in the shapes the
 * inventory store writes them, into the same DynamoDB Local in the same run, with 1 and 4 writers.
 *
 * - items: 100,000 new items (quick: 2,000); the raw loader writes each row's record and sku claim.
 *   One run, up to 3 when the first (import and both loaders) took under 3 minutes.
 * - stock-adjustments: 10,000 rows (quick: 500) over items, a location and a PO receipt imported
 *   first; the raw loader writes one ledger item (the movement) per row, while the import also
 *   updates the stock record and item total, claims the row and emits its events. 3 runs (quick: 1).
 *   Before each, a dry run of the same file on the same data: dry run ÷ real run, job processing time.
 *
 * - stock-counts at the limit (suite `imports-limits`): 100,000 rows over 100,000 distinct
 *   items, run in process by the real pipeline in invocations of the worker's budget (quick:
 *   3,000 rows in invocations of 15 s, so that continuations happen; bench/import-limits.ts):
 *   rows/s and invocations per job.
 *
 * Ratios are the median of each run's import ÷ that run's raw loader (1 writer), end to end.
 * DynamoDB Local's latency is not AWS's: ratios compare work done, absolute figures do not
 * forecast AWS.
 */

/** Import end to end ÷ the raw loader with 1 writer, per kind (docs/performance.md "Imports"). */
const RATIO_TARGETS = { 'items:': 0.6, 'stock-adjustments:': 0.2 } as const;
/** Transaction actions per unit (docs/performance.md "Actions per stock row"). */
const ACTION_TARGETS = { adjustmentRow: 4, transferRow: 5, buildSource: 4 } as const;
/** stock-counts at the limit: the 100,000-row file in under 7 minutes. */
const LIMIT_RATE_TARGET = 250;
/** A dry run of stock-adjustments takes at most half the real run's time (docs/performance.md "Dry runs"). */
const DRY_RUN_RATIO_TARGET = 0.5;
const ITEM_RUNS_WHEN_FAST = 3;
const FAST_RUN_MS = 3 * 60_000;
const IMPORT_TIMEOUT_MS = 30 * 60_000;

export interface FinishedImport {
  job: Job;
  /** From just before the POST to the first poll that saw the job finished. */
  endToEndSeconds: number;
  /** The job's own startedAt → completedAt. */
  processingSeconds: number;
}

/**
 * POSTs a file (duplicateStrategy `fail`) and polls it until it has finished; throws unless it
 * succeeded. Polls every 100 ms, later every 2 % of the time elapsed (at most 1 s), so polling
 * skews the end-to-end figure by at most about 2 % and costs few requests on long jobs.
 */
export async function importAndWait(
  stack: Pick<LocalStack, 'baseUrl' | 'key'>,
  kind: string,
  csv: string,
  options: { dryRun?: boolean } = {},
): Promise<FinishedImport> {
  const { id, submittedAt } = await submitFile(stack, stack.key, kind, csv, options);
  for (;;) {
    const job = await getJob(stack.baseUrl, stack.key, id);
    const elapsed = performance.now() - submittedAt;
    if (FINISHED.has(job.status)) {
      if (job.status !== 'succeeded')
        throw new Error(
          `${kind} job ${id} ended ${job.status}: ${JSON.stringify(job.counts)}${job.failure ? ` ${job.failure.code}: ${job.failure.message}` : ''}`,
        );
      const processingSeconds = (Date.parse(job.completedAt ?? '') - Date.parse(job.startedAt ?? '')) / 1000;
      return { job, endToEndSeconds: elapsed / 1000, processingSeconds };
    }
    if (elapsed > IMPORT_TIMEOUT_MS) throw new Error(`${kind} job ${id} still ${job.status} after ${IMPORT_TIMEOUT_MS / 60_000} min`);
    await sleep(Math.min(1000, Math.max(100, elapsed / 50)));
  }
}

async function inventoryStore() {
  // Store code reads its endpoints and table names when first imported: after the stack's env is set.
  const [{ InventoryStore }, { TABLES }] = await Promise.all([
    import('../../lib/inventory/store/inventory-store.ts'),
    import('../../lib/platform/storage/tables.ts'),
  ]);
  const table = process.env[TABLES.inventory.envVar];
  if (!table) throw new Error(`${TABLES.inventory.envVar} is not set: the stack's env must be in process.env`);
  return { table, store: new InventoryStore(table) };
}

/** Each row's item as an items import stores it (record + sku claim), written by `writers` BatchWriteItem loops; rows/s. */
export async function rawItemsLoader(rows: number, writers: number): Promise<number> {
  const { table, store } = await inventoryStore();
  const organizationId = `org_raw_${randomUUID().slice(0, 8)}`;
  const now = new Date().toISOString();
  const items = Array.from({ length: rows }, (_, index) =>
    store.createWrites(organizationId, 'item', {
      id: `itm_raw${index}`,
      sku: `R-${index}`,
      name: `Item ${index}`,
      unit: 'ea',
      description: null,
      category: 'b',
      barcode: null,
      reorderPoint: index % 100,
      trackingMode: 'none',
      createdAt: now,
      updatedAt: now,
    }),
  ).flatMap((writes) => writes.map((write) => write.item.Put?.Item ?? {}));
  return rows / (await batchWriteAll(table, items, writers));
}

/** One ledger item (the movement) per row, as a stock-adjustments import stores it, by `writers` loops; rows/s. */
async function rawMovementsLoader(rows: number, writers: number, stockRecords: number): Promise<number> {
  const { table, store } = await inventoryStore();
  const organizationId = `org_raw_${randomUUID().slice(0, 8)}`;
  const now = new Date().toISOString();
  const items = Array.from({ length: rows }, (_, index) => {
    const movement = {
      id: newMovementId(now),
      type: 'adjustment' as const,
      itemId: `itm_raw${index % stockRecords}`,
      sku: `RAW-${index % stockRecords}`,
      fromLocationId: 'loc_raw',
      toLocationId: null,
      quantity: 1,
      lot: null,
      reference: `R-${index}`,
      occurredAt: now,
    };
    return store.recordMovementWrite(organizationId, movement, [{ stockRecordId: `stk_raw${index % stockRecords}`, quantity: -1 }]).item.Put?.Item ?? {};
  });
  return rows / (await batchWriteAll(table, items, writers));
}

interface Run {
  imported: FinishedImport;
  raw1: number;
  raw4: number;
  /** The dry run of the same file on the same data, just before it (stock-adjustments). */
  dryRun?: FinishedImport;
}

const rate = (value: number) => Math.round(value).toLocaleString('en-US');

function logRun(context: BenchContext, label: string, index: number, rows: number, run: Run): void {
  const { imported, raw1, raw4 } = run;
  context.log(
    `${label} run ${index + 1}: import ${rate(rows / imported.endToEndSeconds)} rows/s end to end (${rate(rows / imported.processingSeconds)} while processing); ` +
      `raw loader ${rate(raw1)} rows/s (1 writer), ${rate(raw4)} (4 writers)`,
  );
}

/** The measures of one kind, medians over its runs. */
function measuresOf(label: keyof typeof RATIO_TARGETS, rows: number, runs: Run[], note: string, rawNote: string): Measure[] {
  const runsNote = `${rows.toLocaleString('en-US')} rows, ${runs.length === 1 ? '1 run' : `median of ${runs.length} runs`}${note ? `; ${note}` : ''}`;
  return [
    {
      name: `${label} import end to end (rows/s)`,
      value: median(runs.map((run) => rows / run.imported.endToEndSeconds)),
      unit: 'rows/s',
      note: `${runsNote}; POST over HTTP → polled finished`,
    },
    {
      name: `${label} import while processing (rows/s)`,
      value: median(runs.map((run) => rows / run.imported.processingSeconds)),
      unit: 'rows/s',
      note: `${runsNote}; job startedAt → completedAt`,
    },
    {
      name: `${label} raw BatchWriteItem loader, 1 writer (rows/s)`,
      value: median(runs.map((run) => run.raw1)),
      unit: 'rows/s',
      note: `${runsNote}; ${rawNote}`,
    },
    {
      name: `${label} raw BatchWriteItem loader, 4 writers (rows/s)`,
      value: median(runs.map((run) => run.raw4)),
      unit: 'rows/s',
      note: `${runsNote}; ${rawNote}`,
    },
    {
      name: `${label} import end to end ÷ raw loader 1 writer`,
      value: median(runs.map((run) => rows / run.imported.endToEndSeconds / run.raw1)),
      unit: '×',
      target: { comparison: '>=', value: RATIO_TARGETS[label] },
      note: `${runsNote}; each run's ratio, same DynamoDB Local`,
    },
  ];
}

export async function itemsMeasures(context: BenchContext): Promise<Measure[]> {
  const rows = context.quick ? 2_000 : 100_000;
  const maxRuns = context.quick ? 1 : ITEM_RUNS_WHEN_FAST;
  const runs: Run[] = [];
  let note = context.quick ? 'quick' : '';
  for (let index = 0; index < maxRuns; index += 1) {
    const started = performance.now();
    const imported = await importAndWait(context.stack, 'items', itemsCsv(rows));
    if (imported.job.counts.created !== undefined && imported.job.counts.created !== rows) {
      throw new Error(`items import created ${imported.job.counts.created} of ${rows} rows: ${JSON.stringify(imported.job.counts)}`);
    }
    const run = { imported, raw1: await rawItemsLoader(rows, 1), raw4: await rawItemsLoader(rows, 4) };
    runs.push(run);
    logRun(context, 'items', index, rows, run);
    const tookMs = performance.now() - started;
    if (index === 0 && tookMs >= FAST_RUN_MS && maxRuns > 1) {
      note = `run 1 took ${(tookMs / 60_000).toFixed(1)} min (≥ 3), so no more`;
      break;
    }
  }
  return measuresOf('items:', rows, runs, note, 'record + sku claim per row');
}

export async function stockAdjustmentsMeasures(context: BenchContext): Promise<Measure[]> {
  const rows = context.quick ? 500 : 10_000;
  const runCount = context.quick ? 1 : 3;
  const itemCount = context.quick ? 100 : 1_000;
  // Fresh natural keys, so the suite can run again on the same stack.
  const tag = randomUUID().slice(0, 8).toUpperCase();
  const sku = (index: number) => `ADJ-${tag}-${String(index).padStart(5, '0')}`;
  const location = `L${tag}`;
  const skus = Array.from({ length: itemCount }, (_, index) => sku(index));
  await importAndWait(context.stack, 'items', `sku,name,reorderPoint\n${skus.map((code, index) => `${code},Item ${index},0`).join('\n')}\n`);
  await importAndWait(context.stack, 'locations', `code,name\n${location},Bin ${location}\n`);
  // Enough on hand for every run's -1 rows.
  await importAndWait(
    context.stack,
    'po-receipts',
    `poNumber,sku,locationCode,quantity\n${skus.map((code) => `PO-${tag},${code},${location},${runCount * rows}`).join('\n')}\n`,
  );
  context.log(`stock-adjustments: imported ${itemCount} items, location ${location} and their PO receipt`);
  const runs: Run[] = [];
  for (let index = 0; index < runCount; index += 1) {
    const lines = Array.from({ length: rows }, (_, row) => `${tag}-R${index}-${row},${sku(row % itemCount)},${location},-1`);
    const file = `reference,sku,locationCode,quantityDelta\n${lines.join('\n')}\n`;
    // The dry run first: on the data the real run then finds (docs/imports.md "Dry runs").
    const dryRun = await importAndWait(context.stack, 'stock-adjustments', file, { dryRun: true });
    if (dryRun.job.counts.created !== rows) throw new Error(`the dry run decided ${JSON.stringify(dryRun.job.counts)}, not ${rows} created`);
    const imported = await importAndWait(context.stack, 'stock-adjustments', file);
    const run = { imported, dryRun, raw1: await rawMovementsLoader(rows, 1, itemCount), raw4: await rawMovementsLoader(rows, 4, itemCount) };
    runs.push(run);
    logRun(context, 'stock-adjustments', index, rows, run);
    context.log(
      `stock-adjustments run ${index + 1}: dry run ${dryRun.processingSeconds.toFixed(1)} s, real run ${imported.processingSeconds.toFixed(1)} s while processing`,
    );
  }
  const note = `${rows.toLocaleString('en-US')} rows, ${runs.length === 1 ? '1 run' : `median of ${runs.length} runs`}${context.quick ? '; quick' : ''}; job startedAt → completedAt of each, the dry run just before the real run on the same data`;
  return [
    ...measuresOf('stock-adjustments:', rows, runs, context.quick ? 'quick' : '', 'one ledger item (movement) per row'),
    {
      name: 'stock-adjustments: dry run ÷ real run (time)',
      value: median(runs.map((run) => (run.dryRun?.processingSeconds ?? Infinity) / run.imported.processingSeconds)),
      unit: '×',
      target: { comparison: '<=', value: DRY_RUN_RATIO_TARGET },
      note,
    },
  ];
}

export async function limitMeasures(context: BenchContext): Promise<Measure[]> {
  const rows = context.quick ? 3_000 : 100_000;
  const { IMPORT_QUEUE } = await import('../../lib/platform/storage/tables.ts');
  const budgetMs = context.quick ? 15_000 : IMPORT_QUEUE.workerTimeoutSeconds * 1000;
  const run = await stockCountsAtTheLimit(rows, budgetMs);
  if (run.status !== 'succeeded' || run.counts.processedRows !== rows)
    throw new Error(`stock-counts at the limit ended ${run.status}: ${JSON.stringify(run.counts)}`);
  context.log(`stock-counts at the limit: ${rows} rows in ${run.seconds.toFixed(0)} s over ${run.invocations} invocations of ${budgetMs / 1000} s`);
  const note = `${rows.toLocaleString('en-US')} rows over as many items, invocations of ${budgetMs / 1000} s${context.quick ? ' (quick)' : ' (the worker timeout)'}`;
  return [
    {
      name: 'stock-counts at the limit (rows/s)',
      value: rows / run.seconds,
      unit: 'rows/s',
      target: { comparison: '>=', value: LIMIT_RATE_TARGET },
      note: `${note}; first invocation → job ended`,
    },
    { name: 'stock-counts at the limit: invocations per job', value: run.invocations, unit: 'invocations', note },
  ];
}

/** Transaction actions per stock unit on distinct stored records (bench/action-counts.ts). */
export async function actionMeasures(context: BenchContext): Promise<Measure[]> {
  const items = context.quick ? 30 : 200;
  const counts = await stockActionCounts(items);
  context.log(
    `actions per unit: adjustment row ${counts.adjustmentRow.toFixed(2)}, transfer row ${counts.transferRow.toFixed(2)}, build source ${counts.buildSource.toFixed(2)}`,
  );
  const note = `${items} rows on distinct stored records, in process; fixed per-chunk actions included`;
  return [
    {
      name: 'actions per adjustment row',
      value: counts.adjustmentRow,
      unit: 'actions',
      target: { comparison: '<=', value: ACTION_TARGETS.adjustmentRow },
      note,
    },
    { name: 'actions per transfer row', value: counts.transferRow, unit: 'actions', target: { comparison: '<=', value: ACTION_TARGETS.transferRow }, note },
    {
      name: 'actions per build source',
      value: counts.buildSource,
      unit: 'actions',
      target: { comparison: '<=', value: ACTION_TARGETS.buildSource },
      note: 'builds of 4 BOMs of 7 lines, each line a distinct stored record',
    },
  ];
}

export const importsSuite: Suite = {
  name: 'imports',
  async run(context) {
    return [...(await actionMeasures(context)), ...(await itemsMeasures(context)), ...(await stockAdjustmentsMeasures(context))];
  },
};

/** The imports at their limits, a suite of its own so that `--only imports-limits` runs it alone. */
export const importLimitsSuite: Suite = {
  name: 'imports-limits',
  run: limitMeasures,
};
