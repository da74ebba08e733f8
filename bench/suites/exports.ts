import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { batchWriteAll } from '../raw-loader.ts';
import type { Measure, Suite } from './suite.ts';

/**
 * Exports (docs/exports.md): an export of N movements by the real worker code in a process of its
 * own (rows/s and its max RSS), next to a raw loop in the same run, also in a fresh process of its
 * own, that pages the same Query and writes the same CSV to S3 in 8 MiB multipart parts. Sizes: quick 2,000 and 20,000; full
 * 100,000 and 1,000,000 (seeding 1,000,000 into DynamoDB Local takes many minutes: run it on a
 * machine of its own). Targets: ≥ 0.7 × the raw loop's rows/s; max RSS growth ≤ 64 MB between the
 * two sizes.
 */

/** Movements built and written this many at a time, so seeding 1,000,000 holds one slice in memory, not all. */
const SEED_SLICE = 50_000;

const run = promisify(execFile);

async function seedMovements(organizationId: string, count: number): Promise<void> {
  const [{ movementWrite }, { newMovementId }, { TABLES }] = await Promise.all([
    import('../../lib/inventory/store/movements-store.ts'),
    import('../../lib/inventory/domain/stock.ts'),
    import('../../lib/platform/storage/tables.ts'),
  ]);
  const table = process.env[TABLES.inventory.envVar] ?? '';
  const base = Date.parse('2026-01-01T00:00:00.000Z');
  for (let first = 0; first < count; first += SEED_SLICE) {
    // Each movement as an import stores it: ONE item, in the list, with its leg.
    const items = Array.from({ length: Math.min(SEED_SLICE, count - first) }, (_, offset) => {
      const index = first + offset;
      const occurredAt = new Date(base + index * 1000).toISOString();
      const quantity = (index % 97) + 0.5;
      const record = {
        id: newMovementId(occurredAt),
        type: 'adjustment' as const,
        itemId: `itm_B${index % 500}`,
        sku: `=SKU-${index % 500}`,
        fromLocationId: null,
        toLocationId: 'loc_B1',
        quantity,
        lot: null,
        reference: `REF-${index}`,
        occurredAt,
      };
      return movementWrite(table, organizationId, record, [{ stockRecordId: `stk_B${index % 500}`, quantity }]).item.Put?.Item ?? {};
    });
    await batchWriteAll(table, items, 8);
  }
}

async function queuedExport(organizationId: string): Promise<string> {
  const [{ ExportSubmitter }, { ExportJobsStore }, { TransactionWriter }, { TABLES }] = await Promise.all([
    import('../../lib/exports/domain/submit.ts'),
    import('../../lib/exports/store/export-jobs-store.ts'),
    import('../../lib/platform/dynamo/transaction-writer.ts'),
    import('../../lib/platform/storage/tables.ts'),
  ]);
  const plan = new ExportSubmitter({ jobs: new ExportJobsStore(process.env[TABLES.inventory.envVar] ?? ''), queue: { send: async () => undefined } }).prepare(
    organizationId,
    { kind: 'movements', format: 'csv', filters: {} },
  );
  const writer = new TransactionWriter({ events: process.env[TABLES.events.envVar] ?? '', audit: process.env[TABLES.audit.envVar] ?? '' });
  await writer.run({ organizationId, actor: { type: 'system', id: 'bench' }, traceId: null }, async () => plan);
  return plan.result.id;
}

/** Runs `script` (a file of bench/) in a process of its own with the local stack's environment; its last stdout line is JSON. */
async function child<T>(script: string, ...args: string[]): Promise<T> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '..', script), ...args], {
    env: process.env,
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout.trim().split('\n').pop() ?? '{}') as T;
}

/** The baseline (bench/export-raw-child.ts), like the worker in a fresh process: not in this one, which has just seeded the rows. */
const rawLoop = (organizationId: string) => child<{ rows: number; seconds: number }>('export-raw-child.ts', organizationId);

const workerRun = (organizationId: string, jobId: string) => child<{ seconds: number; maxRssMb: number }>('export-worker-child.ts', organizationId, jobId);

export const exportsSuite: Suite = {
  name: 'exports',
  async run({ quick, log }) {
    const sizes = quick ? [2_000, 20_000] : [100_000, 1_000_000];
    const measures: Measure[] = [];
    const rss: number[] = [];
    for (const size of sizes) {
      const organizationId = `org_bench_export_${size}_${Date.now()}`;
      const seeding = performance.now();
      await seedMovements(organizationId, size);
      log(`${size} movements seeded in ${((performance.now() - seeding) / 1000).toFixed(1)} s`);
      const raw = await rawLoop(organizationId);
      const worker = await workerRun(organizationId, await queuedExport(organizationId));
      const workerRate = size / worker.seconds;
      const rawRate = raw.rows / raw.seconds;
      log(`${size}: worker ${Math.round(workerRate)} rows/s, raw ${Math.round(rawRate)} rows/s, max RSS ${worker.maxRssMb.toFixed(0)} MB`);
      rss.push(worker.maxRssMb);
      measures.push(
        {
          name: `export of ${size} movements (rows/s)`,
          value: Math.round(workerRate),
          unit: 'rows/s',
          note: 'the worker code in a process of its own, one invocation, 8 MiB parts',
        },
        {
          name: `raw loop, same Query + CSV + multipart, ${size} (rows/s)`,
          value: Math.round(rawRate),
          unit: 'rows/s',
          note: 'same run, a process of its own',
        },
        { name: `worker / raw, ${size}`, value: Number((workerRate / rawRate).toFixed(2)), unit: '×', target: { comparison: '>=', value: 0.7 } },
        { name: `worker max RSS, ${size} rows`, value: Math.round(worker.maxRssMb), unit: 'MB' },
      );
    }
    measures.push({
      name: `max RSS growth ${sizes[0]} → ${sizes[1]} rows`,
      value: Math.round((rss[1] ?? 0) - (rss[0] ?? 0)),
      unit: 'MB',
      target: { comparison: '<=', value: 64 },
    });
    return measures;
  },
};
