import { inProcessImports } from './in-process-import.ts';

/**
 * Transaction actions per stock unit (docs/performance.md "Actions per stock row"): stock files
 * run in process by the real pipeline on distinct stored records, every committed
 * TransactWriteItems counted (bench/models/transaction-meter.ts). A unit's figure is the actions of
 * the transactions that carried rows ÷ the rows, fixed per-chunk actions included; for builds,
 * which run as build jobs (docs/boms.md "Builds"), every transaction of the job (the build's
 * submission, its steps, the row's verdict) ÷ the sources drawn. test/integration/stock-action-counts.test.ts holds the same
 * figures as ceilings.
 */

export interface ActionCounts {
  adjustmentRow: number;
  transferRow: number;
  buildSource: number;
}

export async function stockActionCounts(itemCount: number): Promise<ActionCounts> {
  const [imports, { meterTransactions }] = await Promise.all([inProcessImports(), import('./models/transaction-meter.ts')]);
  const organizationId = imports.newOrganization('act');
  const boms = 4;
  const bomLines = 7;
  const skus = Array.from({ length: itemCount }, (_, index) => `I-${index}`);
  const components = Array.from({ length: boms }, (_, bom) => Array.from({ length: bomLines }, (_, line) => `C-${bom}-${line}`));
  const everySku = [...skus, ...components.flat(), ...components.map((_, bom) => `KIT-${bom}`)];
  const csv = (header: string, rows: string[]) => `${header}\n${rows.join('\n')}\n`;
  await imports.runWhole(
    organizationId,
    'items',
    csv(
      'sku,name',
      everySku.map((sku) => `${sku},${sku}`),
    ),
  );
  await imports.runWhole(organizationId, 'locations', csv('code,name,type', ['A,Bin A,bin', 'B,Bin B,bin']));
  await imports.runWhole(
    organizationId,
    'po-receipts',
    csv(
      'poNumber,sku,locationCode,quantity',
      everySku.flatMap((sku) => [`PO-SEED,${sku},A,1000`, `PO-SEED,${sku},B,1000`]),
    ),
  );
  await imports.runWhole(
    organizationId,
    'boms',
    csv(
      'bomCode,targetSku,componentSku,quantity',
      components.flatMap((lines, bom) => lines.map((sku) => `BOM-${bom},KIT-${bom},${sku},1`)),
    ),
  );

  const meter = meterTransactions();
  const measure = async (kind: string, file: string, units: number, everyTransaction = false) => {
    meter.clear();
    await imports.runWhole(organizationId, kind, file);
    const rowTransactions = everyTransaction ? meter.committed : meter.committed.filter((transaction) => (transaction.tables[imports.tables.events] ?? 0) > 0);
    return rowTransactions.reduce((sum, { actions }) => sum + actions, 0) / units;
  };
  try {
    return {
      adjustmentRow: await measure(
        'stock-adjustments',
        csv(
          'reference,sku,locationCode,quantityDelta',
          skus.map((sku) => `ADJ-1,${sku},A,-1`),
        ),
        itemCount,
      ),
      transferRow: await measure(
        'stock-transfers',
        csv(
          'reference,sku,fromLocationCode,toLocationCode,quantity',
          skus.map((sku) => `TR-1,${sku},A,B,1`),
        ),
        itemCount,
      ),
      buildSource: await measure(
        'builds',
        csv(
          'buildReference,bomCode,quantity,locationCode',
          components.map((_, bom) => `BLD-${bom},BOM-${bom},1,A`),
        ),
        boms * bomLines,
        true,
      ),
    };
  } finally {
    meter.stop();
  }
}
