import { describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { postBom } from '../support/boms.ts';
import { allRowErrors, feedOf, importAndWait, itemsOf, locationsOf } from '../support/imports.ts';
import { stockAt } from '../support/stock.ts';

/**
 * Rules of the stock model over HTTP, through imports (docs/inventory.md): an item's tracking
 * mode cannot change while it holds stock; a BOM whose every line draws from its own stock record
 * builds in one transaction; a build draws a component tracked by lot oldest lot first. The BOM
 * size limit itself (500 lines) is test/e2e/boms-500-lines.test.ts's.
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
    await importAndWait(org.key, {
      kind: 'po-receipts',
      duplicateStrategy: 'fail',
      file: csv('poNumber,sku,locationCode,quantity,lot', 'PO-1,LOTI,A1,100,L1', 'PO-1,LOTE,A1,5,E1'),
    });
    await importAndWait(org.key, {
      kind: 'stock-adjustments',
      duplicateStrategy: 'fail',
      file: csv('reference,sku,locationCode,quantityDelta,lot', 'ADJ-1,LOTE,A1,-5,E1'),
    });

    // Act
    const toNone = await importAndWait(org.key, {
      kind: 'items',
      duplicateStrategy: 'update',
      file: csv('sku,name,trackingMode', 'LOTI,Lot item,none', 'LOTE,Emptied,none', 'FRESH,Fresh,lot'),
    });
    const emptyCell = await importAndWait(org.key, {
      kind: 'items',
      duplicateStrategy: 'update',
      file: csv('sku,name,trackingMode', 'LOTI,Lot item renamed,'),
    });
    const sameMode = await importAndWait(org.key, {
      kind: 'items',
      duplicateStrategy: 'update',
      file: csv('sku,name,trackingMode', 'LOTI,Lot item renamed,lot'),
    });
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

describe('BOM size (issue 24, item 9; issue 34)', () => {
  // More lines than one transaction could draw from (22) and than one draw slice holds (25): the import runs the build as a job.
  const MAX = 60;
  const components = (count: number) => Array.from({ length: count }, (_, index) => `C-${index + 1}`);

  it(`imports a build of a BOM of ${MAX} lines, each drawn from its own stock record, through the build runner`, async () => {
    // Prepare: KIT and MAX components, 10 of each at A1, each with reorder point 10 so a build crosses it
    const skus = components(MAX);
    const org = await organization(['KIT,Kit,ea,,none', ...skus.map((sku) => `${sku},Part ${sku},ea,10,none`)]);
    await importAndWait(org.key, {
      kind: 'po-receipts',
      duplicateStrategy: 'fail',
      file: csv('poNumber,sku,locationCode,quantity', ...skus.map((sku) => `PO-1,${sku},A1,10`)),
    });
    const items = await itemsOf(org.organizationId, ['KIT', ...skus]);
    const id = (sku: string) => items.get(sku)?.record.id ?? '';
    const body = { code: 'KIT-BOM', name: 'Kit', targetItemId: id('KIT'), status: 'active', components: skus.map((sku) => ({ itemId: id(sku), quantity: 1 })) };

    // Act
    const largest = await postBom(org.key, body);
    const build = await importAndWait(org.key, {
      kind: 'builds',
      duplicateStrategy: 'fail',
      file: csv('buildReference,bomCode,quantity,locationCode', 'B-1,KIT-BOM,1,A1'),
    });
    const buildErrors = (await allRowErrors(org.key, build.id)).errors;
    const a1 = (await locationsOf(org.organizationId, ['A1'])).get('A1')?.record.id ?? '';
    const feed = await feedOf(org.organizationId);

    // Assess
    expect(largest.status).toBe(201);
    expect(buildErrors).toEqual([]);
    expect(build).toMatchObject({ status: 'succeeded', counts: { created: 1, failed: 0 } });
    expect((await stockAt(org.organizationId, id('KIT'), a1, null)).onHand).toBe(1);
    for (const sku of skus) expect((await stockAt(org.organizationId, id(sku), a1, null)).onHand, sku).toBe(9);
    expect(feed.filter((event) => event.type === 'low-stock')).toHaveLength(MAX);
  });
});

describe('builds draw a component tracked by lot oldest lot first (issue 24, item 2)', () => {
  it('without source lines: oldest lot at locationCode first, split across lots, each lot in consumed, its own movement and stock.changed', async () => {
    // Prepare: RESIN received at A1 in L-2 first, then in L-1 (names sort the other way), and at B1 in L-0; KIT = 1 RESIN
    const org = await organization(['KIT,Kit,ea,,none', 'RESIN,Resin,kg,,lot'], ['A1,Bin A1,bin,', 'B1,Bin B1,bin,']);
    await importAndWait(org.key, {
      kind: 'po-receipts',
      duplicateStrategy: 'fail',
      file: csv('poNumber,sku,locationCode,quantity,lot', 'PO-0,RESIN,B1,50,L-0'),
    });
    await importAndWait(org.key, {
      kind: 'po-receipts',
      duplicateStrategy: 'fail',
      file: csv('poNumber,sku,locationCode,quantity,lot', 'PO-1,RESIN,A1,3,L-2'),
    });
    await importAndWait(org.key, {
      kind: 'po-receipts',
      duplicateStrategy: 'fail',
      file: csv('poNumber,sku,locationCode,quantity,lot', 'PO-2,RESIN,A1,10,L-1'),
    });
    await importAndWait(org.key, { kind: 'boms', duplicateStrategy: 'fail', file: csv('bomCode,targetSku,componentSku,quantity', 'KIT-BOM,KIT,RESIN,1') });
    const items = await itemsOf(org.organizationId, ['KIT', 'RESIN']);
    const locations = await locationsOf(org.organizationId, ['A1', 'B1']);
    const [resin, a1, b1] = [items.get('RESIN')?.record.id ?? '', locations.get('A1')?.record.id ?? '', locations.get('B1')?.record.id ?? ''];
    const feedBefore = (await feedOf(org.organizationId)).length;

    // Act: B-1 builds 5 without source lines (3 of L-2, then 2 of L-1); B-2 names its source line, L-1, and builds 1
    const job = await importAndWait(org.key, {
      kind: 'builds',
      duplicateStrategy: 'fail',
      file: csv('buildReference,bomCode,quantity,locationCode,componentSku,sourceLot', 'B-1,KIT-BOM,5,A1,,', 'B-2,KIT-BOM,1,A1,RESIN,L-1'),
    });
    const events = (await feedOf(org.organizationId)).slice(feedBefore);
    const [l2, l1, l0] = [
      await stockAt(org.organizationId, resin, a1, 'L-2'),
      await stockAt(org.organizationId, resin, a1, 'L-1'),
      await stockAt(org.organizationId, resin, b1, 'L-0'),
    ];
    const bomId = ((await (await callApi('/v1/boms?limit=10', { key: org.key })).json()) as { data: Array<{ id: string }> }).data[0]?.id;
    const buildsOf = async (stockRecordId: string) =>
      (
        (await (await callApi(`/v1/boms/${bomId}/builds?sourceStockRecordId=${stockRecordId}`, { key: org.key })).json()) as {
          data: Array<{ reference: string; consumed: unknown[] }>;
        }
      ).data;

    // Assess
    expect(job).toMatchObject({ status: 'succeeded', counts: { created: 2, failed: 0 } });
    expect([l2.onHand, l1.onHand, l0.onHand]).toEqual([0, 7, 50]);
    const b1Consumed = (await buildsOf(l2.id)).find((build) => build.reference === 'B-1')?.consumed;
    expect(b1Consumed).toEqual([
      { sourceStockRecordId: l2.id, itemId: resin, quantity: 3, lot: 'L-2' },
      { sourceStockRecordId: l1.id, itemId: resin, quantity: 2, lot: 'L-1' },
    ]);
    expect((await buildsOf(l1.id)).map((build) => build.reference).sort()).toEqual(['B-1', 'B-2']);
    // Each build is a job (docs/boms.md "Builds"): its holds (delta 0) come first, then its consumptions.
    const resinEvents = events
      .filter((event) => event.type === 'stock.changed' && (event.data as { itemId: string }).itemId === resin)
      .map((event) => event.data as { lot: string; delta: number; reserved: number; movementId: string | null });
    expect(resinEvents.map(({ lot, delta, reserved }) => [lot, delta, reserved])).toEqual([
      ['L-2', 0, 3],
      ['L-1', 0, 2],
      ['L-2', -3, 0],
      ['L-1', -2, 0],
      ['L-1', 0, 1],
      ['L-1', -1, 0],
    ]);
    const resinChanges = resinEvents.filter((change) => change.delta !== 0);
    const movements = events
      .filter((event) => event.type === 'movement.created')
      .map((event) => (event.data as { movement: { id: string; lot: string | null; type: string } }).movement);
    expect(new Set(resinChanges.map((change) => change.movementId)).size).toBe(3);
    expect(movements.filter((movement) => movement.type === 'consumption').map((movement) => movement.lot)).toEqual(['L-2', 'L-1', 'L-1']);
  });
});
