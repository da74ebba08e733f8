import { describe, expect, it } from 'vitest';
import { createTestKey } from '../support/api.ts';
import { allRowErrors, importAndWait, itemsOf } from '../support/imports.ts';

/**
 * Rules of the stock model over HTTP, through imports (docs/inventory.md): an item's tracking
 * mode cannot change while it holds stock.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

async function organization(items: string[], locations: string[] = ['A1,Bin A1,bin,']) {
  const created = await createTestKey();
  const { key } = created;
  await importAndWait(key, { kind: 'items', duplicateStrategy: 'fail', file: csv('sku,name,unit,reorderPoint,trackingMode', ...items) });
  await importAndWait(key, { kind: 'locations', duplicateStrategy: 'fail', file: csv('code,name,type,parentCode', ...locations) });
  return { key, organizationId: created.record.organizationId };
}

describe('trackingMode changes (issue 24, item 4)', () => {
  it('refuses a trackingMode change while any stock record of the item is non-zero (tracking-change-with-stock), an empty cell included', async () => {
    // Prepare: LOTI holds 100 in lot L1; LOTE held stock once, all of it gone; FRESH never held any
    const org = await organization(['LOTI,Lot item,ea,,lot', 'LOTE,Emptied,ea,,lot', 'FRESH,Fresh,ea,,none']);
    await importAndWait(org.key, { kind: 'po-receipts', duplicateStrategy: 'fail', file: csv('poNumber,sku,locationCode,quantity,lot', 'PO-1,LOTI,A1,100,L1', 'PO-1,LOTE,A1,5,E1') });
    await importAndWait(org.key, { kind: 'stock-adjustments', duplicateStrategy: 'fail', file: csv('reference,sku,locationCode,quantityDelta,lot', 'ADJ-1,LOTE,A1,-5,E1') });

    // Act
    const toNone = await importAndWait(org.key, { kind: 'items', duplicateStrategy: 'update', file: csv('sku,name,trackingMode', 'LOTI,Lot item,none', 'LOTE,Emptied,none', 'FRESH,Fresh,lot') });
    const emptyCell = await importAndWait(org.key, { kind: 'items', duplicateStrategy: 'update', file: csv('sku,name,trackingMode', 'LOTI,Lot item renamed,') });
    const sameMode = await importAndWait(org.key, { kind: 'items', duplicateStrategy: 'update', file: csv('sku,name,trackingMode', 'LOTI,Lot item renamed,lot') });
    const errors = [...(await allRowErrors(org.key, toNone.id)).errors, ...(await allRowErrors(org.key, emptyCell.id)).errors];
    const items = await itemsOf(org.organizationId, ['LOTI', 'LOTE', 'FRESH']);

    // Assess: only LOTI is refused, each time; an update that keeps the mode applies
    expect(toNone.counts).toMatchObject({ updated: 2, failed: 1 });
    expect(emptyCell.counts).toMatchObject({ updated: 0, failed: 1 });
    expect(sameMode.counts).toMatchObject({ updated: 1, failed: 0 });
    expect(errors.map((error) => [error.rowNumber, error.column, error.value, error.code])).toEqual([
      [1, 'trackingMode', 'none', 'tracking-change-with-stock'],
      [1, 'trackingMode', null, 'tracking-change-with-stock'],
    ]);
    expect(['LOTI', 'LOTE', 'FRESH'].map((sku) => items.get(sku)?.record).map((record) => [record?.sku, record?.name, record?.trackingMode])).toEqual([
      ['LOTI', 'Lot item renamed', 'lot'],
      ['LOTE', 'Emptied', 'none'],
      ['FRESH', 'Fresh', 'lot'],
    ]);
  });
});
