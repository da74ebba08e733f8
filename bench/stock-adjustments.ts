import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { FINISHED, getJob, startStack, submitFile, type Job, type LocalStack } from './local-stack.ts';
import { batchWriteAll } from './raw-loader.ts';

/**
 * Stock-adjustment import throughput (docs/inventory.md "stock-adjustments"): a 10,000-row file
 * over HTTP on the local stack, each row a movement with its ledger entry, stock record and item
 * total and two events, next to a raw BatchWriteItem loader writing one ledger item per row into
 * the same local DynamoDB in the same run. Median of BENCH_RUNS (default 3) runs each.
 *
 * Needs the local stack (it starts its own in-memory `npm start`):
 *   npx tsx bench/stock-adjustments.ts
 * BENCH_ADJUSTMENT_ROWS (default 10000) sets the file size. DynamoDB Local's latency is not AWS's:
 * the ratio compares work done, the absolute figures do not forecast AWS.
 */

const ROWS = Number(process.env.BENCH_ADJUSTMENT_ROWS ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ITEMS = 1000;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function importAndWait(stack: LocalStack, kind: string, csv: string): Promise<{ job: Job; seconds: number }> {
  const { id, submittedAt } = await submitFile(stack, stack.key, kind, csv);
  for (;;) {
    const job = await getJob(stack.baseUrl, stack.key, id);
    if (FINISHED.has(job.status)) {
      if (job.status !== 'succeeded') throw new Error(`${kind} job ${id} ended ${job.status}: ${JSON.stringify(job.counts)}`);
      return { job, seconds: (performance.now() - submittedAt) / 1000 };
    }
    await sleep(200);
  }
}

const sku = (index: number) => `ADJ-${String(index).padStart(5, '0')}`;

/** One ledger item per row, as the import writes it, with BatchWriteItem by `writers` loops. */
async function rawLoader(rows: number, writers: number): Promise<number> {
  const [{ InventoryStore }, { TABLES }] = await Promise.all([import('../lib/store/inventory-store.ts'), import('../lib/store/tables.ts')]);
  const table = process.env[TABLES.inventory.envVar] ?? '';
  const store = new InventoryStore(table);
  const organizationId = `org_raw_${randomUUID().slice(0, 8)}`;
  const now = new Date().toISOString();
  const items = Array.from({ length: rows }, (_, index) => store.movementWrite(organizationId, { id: `mov_raw${index}`, stockRecordId: `stk_raw${index % ITEMS}`, quantity: -1, type: 'adjustment', reference: `R-${index}`, occurredAt: now }).item.Put?.Item ?? {});
  return rows / (await batchWriteAll(table, items, writers));
}

async function main(): Promise<void> {
  const stack = await startStack();
  try {
    Object.assign(process.env, stack.env, { LOG_LEVEL: 'silent' });
    const items = Array.from({ length: ITEMS }, (_, index) => `${sku(index)},Item ${index},0`);
    await importAndWait(stack, 'items', `sku,name,reorderPoint\n${items.join('\n')}\n`);
    await importAndWait(stack, 'locations', 'code,name\nA1,Bin A1\n');
    await importAndWait(stack, 'po-receipts', `poNumber,sku,locationCode,quantity\n${Array.from({ length: ITEMS }, (_, index) => `PO-1,${sku(index)},A1,${RUNS * ROWS}`).join('\n')}\n`);
    const imports: number[] = [];
    const processing: number[] = [];
    const one: number[] = [];
    const four: number[] = [];
    for (let run = 0; run < RUNS; run += 1) {
      const lines = Array.from({ length: ROWS }, (_, index) => `RUN${run}-${index},${sku(index % ITEMS)},A1,-1`);
      const { job, seconds } = await importAndWait(stack, 'stock-adjustments', `reference,sku,locationCode,quantityDelta\n${lines.join('\n')}\n`);
      imports.push(ROWS / seconds);
      processing.push(ROWS / ((Date.parse(job.completedAt ?? '') - Date.parse(job.startedAt ?? '')) / 1000));
      one.push(await rawLoader(ROWS, 1));
      four.push(await rawLoader(ROWS, 4));
      console.log(`run ${run + 1}: import ${Math.round(imports.at(-1) ?? 0)} rows/s end to end (${Math.round(processing.at(-1) ?? 0)} while processing); raw loader ${Math.round(one.at(-1) ?? 0)} (1 writer), ${Math.round(four.at(-1) ?? 0)} (4 writers)`);
    }
    const [imported, processed, raw1, raw4] = [median(imports), median(processing), median(one), median(four)];
    console.log(`stock-adjustments, ${ROWS} rows, median of ${RUNS}: ${Math.round(imported)} rows/s end to end, ${Math.round(processed)} rows/s while processing`);
    console.log(`raw BatchWriteItem loader of one ledger item per row: ${Math.round(raw1)} rows/s (1 writer), ${Math.round(raw4)} rows/s (4 writers)`);
    console.log(`import ÷ raw loader: ${(imported / raw1).toFixed(2)} (1 writer), ${(imported / raw4).toFixed(2)} (4 writers)`);
  } finally {
    await stack.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
