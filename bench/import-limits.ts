import { inProcessImports } from './in-process-import.ts';
import { batchWriteAll } from './raw-loader.ts';

/**
 * A stock-counts job at its limits (docs/imports.md "Large files and continuations"): `rows`
 * rows over as many distinct items, run in process against the stack's tables by the real
 * pipeline (bench/in-process-import.ts), in invocations of `budgetMs` each (the production
 * worker's timeout unless a smaller one makes continuations show at a quick size), each handing
 * the rest on as the worker does.
 */
export interface LimitRun {
  seconds: number;
  invocations: number;
  counts: Record<string, number>;
  status: string;
}

export async function stockCountsAtTheLimit(rows: number, budgetMs: number): Promise<LimitRun> {
  const [imports, { InventoryStore }] = await Promise.all([inProcessImports(), import('../lib/inventory/store/inventory-store.ts')]);
  const organizationId = imports.newOrganization('lim');
  const sku = (index: number) => `L-${index}`;
  const now = new Date().toISOString();
  const store = new InventoryStore(imports.tables.inventory);
  const seed = Array.from({ length: rows }, (_, index) =>
    store
      .createWrites(organizationId, 'item', {
        id: `itm_lim${index}`,
        sku: sku(index),
        name: `Item ${index}`,
        unit: 'ea',
        description: null,
        category: null,
        barcode: null,
        reorderPoint: 0,
        trackingMode: 'none',
        createdAt: now,
        updatedAt: now,
      })
      .map((write) => write.item.Put?.Item ?? {}),
  ).flat();
  seed.push(
    ...store
      .createWrites(organizationId, 'location', { id: 'loc_lim', code: 'LIM', name: 'Bin', type: 'bin', parentCode: null, createdAt: now, updatedAt: now })
      .map((write) => write.item.Put?.Item ?? {}),
  );
  await batchWriteAll(imports.tables.inventory, seed, 4);

  const lines = [
    'countReference,locationCode,sku,countedQuantity',
    ...Array.from({ length: rows }, (_, index) => `C-${Math.floor(index / 1000)},LIM,${sku(index)},${index % 7}`),
  ];
  const jobId = await imports.submit(organizationId, 'stock-counts', lines.join('\n') + '\n');
  const started = performance.now();
  const run = await imports.process(organizationId, jobId, budgetMs);
  return { seconds: (performance.now() - started) / 1000, ...run };
}
