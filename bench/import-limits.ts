import { randomUUID } from 'node:crypto';
import { batchWriteAll } from './raw-loader.ts';

/**
 * A stock-counts job at its limits (docs/imports.md "Large files and continuations"): `rows`
 * rows over as many distinct items, run in process against the stack's tables by the real
 * pipeline, in invocations of `budgetMs` each (the production worker's timeout unless a smaller
 * one makes continuations show at a quick size), each handing the rest on as the worker does.
 * Not over HTTP: what is measured is how many invocations a job needs, which only the worker sees.
 * Store code is imported on first call, after the bench has set the stack's env.
 */
export interface LimitRun {
  seconds: number;
  invocations: number;
  counts: Record<string, number>;
  status: string;
}

export async function stockCountsAtTheLimit(rows: number, budgetMs: number): Promise<LimitRun> {
  const [
    { ImportJobProcessor },
    { ImportJobSubmitter },
    { FilesStore },
    { ImportJobsStore },
    { ImportRecordsStore },
    { InventoryStore },
    { BUCKET_ENV_VAR, TABLES },
    { BULK_CHUNK_BYTES, bulkChunkActions, storeWriteBytes, TransactionWriter },
  ] = await Promise.all([
    import('../lib/domain/imports/pipeline/process-job.ts'),
    import('../lib/domain/imports/submit-job.ts'),
    import('../lib/store/files-store.ts'),
    import('../lib/store/import-jobs-store.ts'),
    import('../lib/store/import-records.ts'),
    import('../lib/store/inventory-store.ts'),
    import('../lib/store/tables.ts'),
    import('../lib/store/transaction-writer.ts'),
  ]);
  const env = (name: string) => {
    const value = process.env[name];
    if (!value) throw new Error(`${name} is not set: the stack's env must be in process.env`);
    return value;
  };
  const table = env(TABLES.inventory.envVar);
  const organizationId = `org_lim_${randomUUID().slice(0, 8)}`;
  const sku = (index: number) => `L-${index}`;
  const now = new Date().toISOString();
  const store = new InventoryStore(table);
  const seed = Array.from({ length: rows }, (_, index) =>
    store
      .createWrites(organizationId, 'item', { id: `itm_lim${index}`, sku: sku(index), name: `Item ${index}`, unit: 'ea', description: null, category: null, barcode: null, reorderPoint: 0, trackingMode: 'none', createdAt: now, updatedAt: now })
      .map((write) => write.item.Put?.Item ?? {}),
  ).flat();
  seed.push(...store.createWrites(organizationId, 'location', { id: 'loc_lim', code: 'LIM', name: 'Bin', type: 'bin', parentCode: null, createdAt: now, updatedAt: now }).map((write) => write.item.Put?.Item ?? {}));
  await batchWriteAll(table, seed, 4);

  const writer = new TransactionWriter({ events: env(TABLES.events.envVar), audit: env(TABLES.audit.envVar) });
  const jobs = new ImportJobsStore(table);
  const files = new FilesStore(env(BUCKET_ENV_VAR));
  const lines = ['countReference,locationCode,sku,countedQuantity', ...Array.from({ length: rows }, (_, index) => `C-${Math.floor(index / 1000)},LIM,${sku(index)},${index % 7}`)];
  const plan = await new ImportJobSubmitter({ files, jobs, queue: { send: async () => undefined } }).prepare(
    organizationId,
    { kind: 'stock-counts', duplicateStrategy: 'fail', file: { fileName: 'counts.csv', content: Buffer.from(lines.join('\n') + '\n') } },
    new Date(),
  );
  await writer.run({ organizationId, actor: { type: 'system', id: 'bench' }, traceId: null }, async () => plan);
  // Out of the dispatch index, or the stack's sweeper would hand the job to its own worker.
  await jobs.markDispatched(organizationId, plan.result.id);

  let handoffs = 0;
  const processor = new ImportJobProcessor({
    jobs,
    files,
    records: new ImportRecordsStore(table),
    writer,
    continueLater: async (message) => void (handoffs = message.handoffsWithoutProgress ?? 0),
    chunkActions: bulkChunkActions(),
    chunkBytes: BULK_CHUNK_BYTES,
    writeBytes: storeWriteBytes,
  });
  const started = performance.now();
  let invocations = 0;
  let outcome = 'continued';
  while (outcome === 'continued' && invocations < 500) {
    invocations += 1;
    const deadline = Date.now() + budgetMs;
    outcome = await processor.process(organizationId, plan.result.id, () => deadline - Date.now(), handoffs);
  }
  if (outcome !== 'finished') throw new Error(`stock-counts at the limit: the last invocation ended '${outcome}'`);
  const seconds = (performance.now() - started) / 1000;
  const job = await jobs.get(organizationId, plan.result.id);
  return { seconds, invocations, counts: { ...job?.counts }, status: job?.status ?? 'missing' };
}
