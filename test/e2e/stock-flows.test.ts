import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { allRowErrors, errorKeys, feedOf, importAndWait, itemsOf, locationsOf } from '../support/imports.ts';
import { expectEventsMatchSchemas, expectLedgerMatches, stockAt } from '../support/stock.ts';

/**
 * Stock flows over HTTP, through imports (docs/inventory.md): a PO is received, part of it
 * transferred, counted with a variance, built into a product with lot consumption, and adjusted
 * below the reorder point. On-hand, the ledger, the exact events, build provenance and re-imports
 * are checked.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

async function organizationWithCatalog() {
  const created = await createTestKey();
  const { key } = created;
  const organizationId = created.record.organizationId;
  await importAndWait(key, {
    kind: 'items',
    duplicateStrategy: 'fail',
    file: csv('sku,name,reorderPoint,trackingMode', 'WIDGET,Widget,30,none', 'RESIN,Resin,,lot', 'GADGET,Gadget,,none'),
  });
  await importAndWait(key, {
    kind: 'locations',
    duplicateStrategy: 'fail',
    file: csv('code,name,type,parentCode', 'WH,Warehouse,warehouse,', 'A1,Bin A1,bin,WH', 'B1,Bin B1,bin,WH'),
  });
  await importAndWait(key, {
    kind: 'boms',
    duplicateStrategy: 'fail',
    file: csv('bomCode,name,targetSku,componentSku,quantity,scrapPercent', 'GADGET-BOM,Gadget,GADGET,WIDGET,2,', 'GADGET-BOM,,GADGET,RESIN,0.5,0'),
  });
  const items = await itemsOf(organizationId, ['WIDGET', 'RESIN', 'GADGET']);
  const locations = await locationsOf(organizationId, ['A1', 'B1']);
  const id = (map: Map<string, { record: { id: string } }>, code: string) => map.get(code)?.record.id ?? '';
  return {
    key,
    organizationId,
    widget: id(items, 'WIDGET'),
    resin: id(items, 'RESIN'),
    gadget: id(items, 'GADGET'),
    a1: id(locations, 'A1'),
    b1: id(locations, 'B1'),
  };
}

const FILES = {
  receipt: { kind: 'po-receipts', file: csv('poNumber,sku,locationCode,quantity,lot', 'PO-1,WIDGET,A1,100,', 'PO-1,RESIN,A1,10,L1') },
  transfer: { kind: 'stock-transfers', file: csv('reference,sku,fromLocationCode,toLocationCode,quantity,lot', 'T-1,WIDGET,A1,B1,40,') },
  count: { kind: 'stock-counts', file: csv('countReference,locationCode,sku,countedQuantity,lot', 'C-1,A1,WIDGET,58,', 'C-1,A1,RESIN,10,L1') },
  build: { kind: 'builds', file: csv('buildReference,bomCode,quantity,locationCode,outputLot,componentSku,sourceLot', 'B-1,GADGET-BOM,5,A1,,RESIN,L1') },
  adjustment: {
    kind: 'stock-adjustments',
    file: csv('reference,sku,locationCode,quantityDelta,lot,reason', 'ADJ-1,WIDGET,B1,-40,,damaged', 'ADJ-2,WIDGET,A1,-20,,'),
  },
} as const;

type Step = keyof typeof FILES;

describe('stock flows through imports', () => {
  it('receives, transfers, counts, builds and adjusts: on-hand, ledger, events, provenance, and re-imports change nothing', async () => {
    // Prepare
    const org = await organizationWithCatalog();
    const eventsBefore = (await feedOf(org.organizationId)).length;

    // Act: each step's file, in order
    const jobs: Record<string, unknown> = {};
    for (const step of Object.keys(FILES) as Step[]) {
      const job = await importAndWait(org.key, { ...FILES[step], duplicateStrategy: 'fail' });
      jobs[step] = { status: job.status, counts: job.counts, ...(job.failure ? { failure: job.failure } : {}) };
    }
    const events = (await feedOf(org.organizationId)).slice(eventsBefore);

    // Assess: every job applied every row
    for (const step of Object.keys(FILES) as Step[]) {
      const rows = FILES[step].file.trim().split('\n').length - 1;
      expect(jobs[step], step).toEqual({
        status: 'succeeded',
        counts: { totalRows: rows, processedRows: rows, created: rows, updated: 0, skipped: 0, failed: 0 },
      });
    }
    // on-hand per stock record, and the ledger invariant on each
    const widgetA1 = await stockAt(org.organizationId, org.widget, org.a1, null);
    const widgetB1 = await stockAt(org.organizationId, org.widget, org.b1, null);
    const resinL1 = await stockAt(org.organizationId, org.resin, org.a1, 'L1');
    const gadgetA1 = await stockAt(org.organizationId, org.gadget, org.a1, null);
    // WIDGET at A1: 100 received, 40 out, counted 58 (−2), 10 built (5 × 2), 20 adjusted out
    expect([widgetA1.onHand, widgetB1.onHand, resinL1.onHand, gadgetA1.onHand]).toEqual([28, 0, 7.5, 5]);
    for (const record of [widgetA1, widgetB1, resinL1, gadgetA1]) await expectLedgerMatches(org.organizationId, record);

    // the exact sequence of events, each valid against its schema
    expect(events.map((event) => event.type)).toEqual([
      // PO-1: two lines, then the receipt
      'movement.created',
      'stock.changed',
      'movement.created',
      'stock.changed',
      'po.received',
      // T-1: one movement, two stock records
      'movement.created',
      'stock.changed',
      'stock.changed',
      // C-1: the WIDGET variance, then the count (RESIN matched)
      'movement.created',
      'stock.changed',
      'count.completed',
      // B-1, a build job (docs/boms.md "Builds"): WIDGET and RESIN held, then consumed, GADGET produced
      'stock.changed',
      'stock.changed',
      'movement.created',
      'stock.changed',
      'movement.created',
      'stock.changed',
      'movement.created',
      'stock.changed',
      // ADJ-1 (B1 to 0: WIDGET total 88 → 48), ADJ-2 (A1: total 48 → 28, below 30)
      'movement.created',
      'stock.changed',
      'movement.created',
      'stock.changed',
      'low-stock',
    ]);
    expectEventsMatchSchemas(events);
    const data = (index: number) => (events[index] as EventEnvelope).data;
    expect(data(4)).toMatchObject({
      poNumber: 'PO-1',
      lines: [
        { itemId: org.widget, quantity: 100, lot: null, stockRecordId: widgetA1.id },
        { itemId: org.resin, quantity: 10, lot: 'L1', stockRecordId: resinL1.id },
      ],
    });
    expect(String(data(4).receiptId)).toMatch(/^rcp_/);
    expect(data(5)).toMatchObject({ movement: { type: 'transfer', fromLocationId: org.a1, toLocationId: org.b1, quantity: 40, reference: 'T-1' } });
    expect([data(6), data(7)]).toMatchObject([
      { stockRecordId: widgetA1.id, previousQuantity: 100, quantity: 60, delta: -40 },
      { stockRecordId: widgetB1.id, previousQuantity: 0, quantity: 40, delta: 40 },
    ]);
    expect(data(10)).toMatchObject({
      countReference: 'C-1',
      locationId: org.a1,
      lines: [
        { itemId: org.widget, lot: null, expected: 60, counted: 58, delta: -2 },
        { itemId: org.resin, lot: 'L1', expected: 10, counted: 10, delta: 0 },
      ],
    });
    const buildId = expect.stringMatching(/^bld_/);
    expect([data(11), data(12)]).toMatchObject([
      { stockRecordId: widgetA1.id, delta: 0, previousReserved: 0, reserved: 10, movementId: null, reservationId: buildId },
      { stockRecordId: resinL1.id, delta: 0, previousReserved: 0, reserved: 2.5, movementId: null, reservationId: buildId },
    ]);
    expect([data(14), data(16)]).toMatchObject([
      { stockRecordId: widgetA1.id, delta: -10, previousReserved: 10, reserved: 0, reservationId: buildId },
      { stockRecordId: resinL1.id, delta: -2.5, previousReserved: 2.5, reserved: 0, reservationId: buildId },
    ]);
    expect([data(13), data(15), data(17)]).toMatchObject([
      { movement: { type: 'consumption', itemId: org.widget, quantity: 10, fromLocationId: org.a1, toLocationId: null, reference: 'B-1' } },
      { movement: { type: 'consumption', itemId: org.resin, quantity: 2.5, lot: 'L1' } },
      { movement: { type: 'production', itemId: org.gadget, quantity: 5, fromLocationId: null, toLocationId: org.a1 } },
    ]);
    expect(data(20)).toMatchObject({ stockRecordId: widgetB1.id, quantity: 0, delta: -40, reason: 'damaged' });
    expect(data(23)).toEqual({ itemId: org.widget, sku: 'WIDGET', onHand: 28, reserved: 0, available: 28, reorderPoint: 30 });

    // build provenance: which builds consumed the RESIN lot
    const boms = (await (await callApi('/v1/boms?q=GADGET', { key: org.key })).json()) as { data: Array<{ id: string }> };
    const bomId = boms.data[0]?.id;
    const provenance = (await (await callApi(`/v1/boms/${bomId}/builds?sourceStockRecordId=${resinL1.id}`, { key: org.key })).json()) as { data: unknown[] };
    expect(provenance.data).toEqual([
      expect.objectContaining({
        bomId,
        reference: 'B-1',
        quantity: 5,
        outputItemId: org.gadget,
        outputStockRecordId: gadgetA1.id,
        locationId: org.a1,
        consumed: expect.arrayContaining([{ sourceStockRecordId: resinL1.id, itemId: org.resin, quantity: 2.5, lot: 'L1' }]),
      }),
    ]);

    // the receipt and the count are attachment targets, each under its own kind only
    const attach = (targetKind: string, targetId: unknown) =>
      callApi('/v1/attachments/links', {
        method: 'POST',
        key: org.key,
        headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify({ targetKind, targetId, url: 'https://example.com/delivery-note.pdf' }),
      });
    expect((await attach('purchase-order', data(4).receiptId)).status).toBe(201);
    expect((await attach('count', data(10).countId)).status).toBe(201);
    expect((await attach('purchase-order', data(10).countId)).status).toBe(400);

    // Act again: every file a second time, with skip
    const feedLength = (await feedOf(org.organizationId)).length;
    for (const step of Object.keys(FILES) as Step[]) {
      const again = await importAndWait(org.key, { ...FILES[step], duplicateStrategy: 'skip' });
      expect(again.counts.skipped, step).toBe(again.counts.totalRows);
    }
    // Assess: nothing moved, nothing emitted
    expect((await feedOf(org.organizationId)).length).toBe(feedLength);
    expect((await stockAt(org.organizationId, org.widget, org.a1, null)).onHand).toBe(28);
    expect((await stockAt(org.organizationId, org.resin, org.a1, 'L1')).onHand).toBe(7.5);
  });

  it('refuses with row errors: insufficient-stock, unknown-sku, unknown-location, lot-required, lot-not-allowed, duplicate, unknown-bom', async () => {
    // Prepare: 5 WIDGET at A1
    const org = await organizationWithCatalog();
    await importAndWait(org.key, {
      kind: 'stock-adjustments',
      duplicateStrategy: 'fail',
      file: csv('reference,sku,locationCode,quantityDelta,lot', 'START,WIDGET,A1,5,'),
    });

    // Act
    const adjustments = await importAndWait(org.key, {
      kind: 'stock-adjustments',
      duplicateStrategy: 'fail',
      file: csv(
        'reference,sku,locationCode,quantityDelta,lot',
        'X1,WIDGET,A1,-6,',
        'X2,NOPE,A1,1,',
        'X3,WIDGET,ZZ,1,',
        'X4,RESIN,A1,1,',
        'X5,WIDGET,A1,1,L9',
        'START,WIDGET,A1,5,',
        'X6,WIDGET,A1,-5,',
      ),
    });
    const builds = await importAndWait(org.key, {
      kind: 'builds',
      duplicateStrategy: 'fail',
      file: csv('buildReference,bomCode,quantity,locationCode', 'B-9,NO-BOM,1,A1', 'B-8,GADGET-BOM,1,A1'),
    });

    // Assess
    expect(adjustments).toMatchObject({ status: 'completed_with_errors', counts: { totalRows: 7, created: 1, failed: 6 } });
    const errors = errorKeys((await allRowErrors(org.key, adjustments.id)).errors);
    expect(errors.map(({ rowNumber, column, code }) => ({ rowNumber, column, code }))).toEqual([
      { rowNumber: 1, column: 'quantityDelta', code: 'insufficient-stock' },
      { rowNumber: 2, column: 'sku', code: 'unknown-sku' },
      { rowNumber: 3, column: 'locationCode', code: 'unknown-location' },
      { rowNumber: 4, column: 'lot', code: 'lot-required' },
      { rowNumber: 5, column: 'lot', code: 'lot-not-allowed' },
      { rowNumber: 6, column: 'reference', code: 'duplicate' },
    ]);
    expect((await stockAt(org.organizationId, org.widget, org.a1, null)).onHand).toBe(0);
    const buildErrors = errorKeys((await allRowErrors(org.key, builds.id)).errors);
    // B-8 needs 2 WIDGET (none left) and RESIN from its lots at A1 (none there)
    expect(buildErrors.map(({ rowNumber, code }) => ({ rowNumber, code }))).toEqual([
      { rowNumber: 1, code: 'unknown-bom' },
      { rowNumber: 2, code: 'insufficient-stock' },
    ]);
  });
});
