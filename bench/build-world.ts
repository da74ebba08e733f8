import { inProcessImports } from './in-process-import.ts';

/**
 * What the `builds` suite builds from (docs/performance.md "Builds"): one organization with a
 * target item, `components` component items and `onHand` of each at bin A1 (made by real imports,
 * in process), and an active BOM of 1 of the first N components per unit for each N of `bomSizes`.
 * The BOMs are written straight through the store, as one transaction each: how a BOM came to be
 * does not change its builds, and the `bom creates` suite measures the BOM routes.
 * Store code is imported on first call, after the bench has set the stack's env.
 */

export interface BuildWorld {
  organizationId: string;
  tables: { inventory: string; events: string; audit: string };
  /** The BOM code of each size, e.g. `BENCH-50` for 50 lines. */
  bomCodes: Map<number, string>;
}

/** Where the stock is and the builds run. */
export const BUILD_LOCATION_CODE = 'A1';

const csv = (header: string, rows: string[]) => `${[header, ...rows].join('\n')}\n`;

export async function buildWorld(options: { bomSizes: readonly number[]; onHand: number }): Promise<BuildWorld> {
  const [imports, { newId }, { InventoryStore }, { BomsStore }, { TransactionWriter }] = await Promise.all([
    inProcessImports(),
    import('../lib/platform/core/ids.ts'),
    import('../lib/inventory/store/inventory-store.ts'),
    import('../lib/boms/store/boms-store.ts'),
    import('../lib/platform/dynamo/transaction-writer.ts'),
  ]);
  const { tables } = imports;
  const organizationId = imports.newOrganization('builds');
  const components = Math.max(...options.bomSizes);
  const componentSkus = Array.from({ length: components }, (_, index) => `BC-${String(index).padStart(4, '0')}`);
  await imports.runWhole(organizationId, 'items', csv('sku,name', ['BENCH-KIT,Bench kit', ...componentSkus.map((sku) => `${sku},Component ${sku}`)]));
  await imports.runWhole(organizationId, 'locations', csv('code,name,type', [`${BUILD_LOCATION_CODE},Bin ${BUILD_LOCATION_CODE},bin`]));
  await imports.runWhole(
    organizationId,
    'po-receipts',
    csv(
      'poNumber,sku,locationCode,quantity',
      componentSkus.map((sku) => `PO-SEED,${sku},${BUILD_LOCATION_CODE},${options.onHand}`),
    ),
  );

  const items = await new InventoryStore(tables.inventory).getByNaturalKeys(organizationId, 'item', ['BENCH-KIT', ...componentSkus]);
  const idOf = (sku: string) => {
    const id = items.get(sku)?.record.id;
    if (!id) throw new Error(`builds bench: item ${sku} was not imported`);
    return id;
  };
  const boms = new BomsStore(tables.inventory);
  const writer = new TransactionWriter({ events: tables.events, audit: tables.audit });
  const bomCodes = new Map<number, string>();
  const at = new Date().toISOString();
  for (const size of options.bomSizes) {
    const code = `BENCH-${size}`;
    const lines = componentSkus
      .slice(0, size)
      .map((sku) => ({ lineId: newId('lin'), itemId: idOf(sku), quantity: 1, unit: null, scrapPercent: 0, notes: null }));
    const content = {
      name: `Bench kit of ${size} lines`,
      targetItemId: idOf('BENCH-KIT'),
      status: 'active' as const,
      outputQuantity: 1,
      unit: null,
      notes: null,
      lines,
    };
    const bomId = newId('bom');
    const revision = { id: newId('rev'), bomId, number: 1, createdAt: at, createdBy: 'bench', summary: { added: size, removed: 0, changed: 0 }, content };
    const writes = boms.createWrites(
      organizationId,
      { id: bomId, code, archived: false, revision: { id: revision.id, number: 1 }, createdAt: at, updatedAt: at, ...content },
      revision,
    );
    await writer.run({ organizationId, actor: { type: 'system', id: 'bench' }, traceId: null }, async () => ({ writes, events: [], result: undefined }));
    bomCodes.set(size, code);
  }
  return { organizationId, tables, bomCodes };
}
