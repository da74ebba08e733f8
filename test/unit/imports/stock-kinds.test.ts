import { describe, expect, it } from 'vitest';
import { buildsKind } from '../../../lib/imports/domain/builds-kind.ts';
import { poReceiptsKind } from '../../../lib/imports/domain/po-receipts-kind.ts';
import { stockAdjustmentsKind } from '../../../lib/imports/domain/stock-adjustments-kind.ts';
import { stockCountsKind } from '../../../lib/imports/domain/stock-counts-kind.ts';
import { stockTransfersKind } from '../../../lib/imports/domain/stock-transfers-kind.ts';
import type { DuplicateStrategy } from '../../../lib/imports/domain/types.ts';
import type { VersionedRecord } from '../../../lib/inventory/domain/records.ts';
import { MAX_ON_HAND, type StockEntry } from '../../../lib/stock/domain/records.ts';
import {
  A1,
  adjustment,
  at,
  bomOf,
  build,
  count,
  decide,
  minutesFromNow,
  problems,
  receipt,
  RESIN,
  STORED_AT,
  transfer,
  WIDGET,
  World,
} from '../../support/stock-world.ts';

/**
 * The five import kinds that move stock (docs/inventory.md "Import kinds"), as adapters: their
 * cell rules, and what a row applied before does. What their units decide against a real
 * StockLedger is in test/unit/stock/flows.test.ts; whole files run through the pipeline in
 * test/e2e/stock-flows.test.ts.
 */

describe('stock kinds: parseRow', () => {
  it('stock-adjustments reads a row; an absent optional column is null', () => {
    // Act
    const full = stockAdjustmentsKind.parseRow(adjustment({ lot: 'L-1', quantitydelta: '-0.000001' }), 1);
    const bare = stockAdjustmentsKind.parseRow({ reference: 'ADJ-1', sku: 'WIDGET', locationcode: 'A1', quantitydelta: '2.5' }, 2);

    // Assess
    expect(full).toEqual({
      ok: true,
      value: { reference: 'ADJ-1', sku: 'WIDGET', locationCode: 'A1', quantityDelta: -0.000001, quantityDeltaCell: '-0.000001', lot: 'L-1', reason: 'damaged' },
    });
    expect(bare).toEqual({
      ok: true,
      value: { reference: 'ADJ-1', sku: 'WIDGET', locationCode: 'A1', quantityDelta: 2.5, quantityDeltaCell: '2.5', lot: null, reason: null },
    });
  });

  it.each([
    { label: 'no reference', cells: { reference: '' }, column: 'reference', code: 'required' },
    { label: 'no sku', cells: { sku: '' }, column: 'sku', code: 'required' },
    { label: 'no locationCode', cells: { locationcode: ' ' }, column: 'locationCode', code: 'required' },
    { label: 'no quantityDelta', cells: { quantitydelta: '' }, column: 'quantityDelta', code: 'required' },
    { label: 'a quantityDelta of 0', cells: { quantitydelta: '0' }, column: 'quantityDelta', code: 'invalid-number' },
    { label: 'a quantityDelta of -0.000000', cells: { quantitydelta: '-0.000000' }, column: 'quantityDelta', code: 'invalid-number' },
    { label: 'a quantityDelta with 7 decimals', cells: { quantitydelta: '-1.0000001' }, column: 'quantityDelta', code: 'invalid-number' },
    { label: 'a quantityDelta with an exponent', cells: { quantitydelta: '1e3' }, column: 'quantityDelta', code: 'invalid-number' },
    { label: 'a reference longer than 64', cells: { reference: 'R'.repeat(65) }, column: 'reference', code: 'too-long' },
    { label: 'a reason longer than 200', cells: { reason: 'r'.repeat(201) }, column: 'reason', code: 'too-long' },
  ])('stock-adjustments reports $label', ({ cells, column, code }) => {
    // Act / Assess
    expect(problems(stockAdjustmentsKind, adjustment(cells))).toEqual([{ column, code }]);
  });

  it('stock-adjustments reports a row without its required columns at all', () => {
    // Act / Assess
    expect(problems(stockAdjustmentsKind, {})).toEqual([
      { column: 'reference', code: 'required' },
      { column: 'sku', code: 'required' },
      { column: 'locationCode', code: 'required' },
      { column: 'quantityDelta', code: 'required' },
    ]);
  });

  it('stock-transfers reads a row', () => {
    // Act / Assess
    expect(stockTransfersKind.parseRow(transfer({ lot: 'L-1', quantity: '0.5' }), 1)).toEqual({
      ok: true,
      value: { reference: 'T-1', sku: 'WIDGET', fromLocationCode: 'A1', toLocationCode: 'B1', quantity: 0.5, quantityCell: '0.5', lot: 'L-1' },
    });
  });

  it.each([
    { label: 'no fromLocationCode', cells: { fromlocationcode: '' }, column: 'fromLocationCode', code: 'required' },
    { label: 'no toLocationCode', cells: { tolocationcode: '' }, column: 'toLocationCode', code: 'required' },
    { label: 'no quantity', cells: { quantity: '' }, column: 'quantity', code: 'required' },
    { label: 'a quantity of 0', cells: { quantity: '0' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a negative quantity', cells: { quantity: '-4' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a quantity with 7 decimals', cells: { quantity: '0.0000001' }, column: 'quantity', code: 'invalid-number' },
    { label: 'the same location on both sides', cells: { tolocationcode: 'A1' }, column: 'toLocationCode', code: 'invalid-value' },
  ])('stock-transfers reports $label', ({ cells, column, code }) => {
    // Act / Assess
    expect(problems(stockTransfersKind, transfer(cells))).toEqual([{ column, code }]);
  });

  it('stock-counts reads a row; a count of 0 is a count', () => {
    // Act / Assess
    expect(stockCountsKind.parseRow(count({ countedquantity: '0' }), 1)).toEqual({
      ok: true,
      value: { countReference: 'CNT-1', locationCode: 'A1', sku: 'WIDGET', countedQuantity: 0, countedQuantityCell: '0', lot: null },
    });
  });

  it.each([
    { label: 'no countReference', cells: { countreference: '' }, column: 'countReference', code: 'required' },
    { label: 'no locationCode', cells: { locationcode: '' }, column: 'locationCode', code: 'required' },
    { label: 'no countedQuantity', cells: { countedquantity: '' }, column: 'countedQuantity', code: 'required' },
    { label: 'a negative countedQuantity', cells: { countedquantity: '-1' }, column: 'countedQuantity', code: 'invalid-number' },
    { label: 'a countedQuantity with 7 decimals', cells: { countedquantity: '2.1234567' }, column: 'countedQuantity', code: 'invalid-number' },
    { label: 'a countedQuantity with a decimal comma', cells: { countedquantity: '2,5' }, column: 'countedQuantity', code: 'invalid-number' },
  ])('stock-counts reports $label', ({ cells, column, code }) => {
    // Act / Assess
    expect(problems(stockCountsKind, count(cells))).toEqual([{ column, code }]);
  });

  it('po-receipts reads a row: receivedAt with an offset becomes UTC, an empty one is null', () => {
    // Act
    const dated = poReceiptsKind.parseRow(receipt({ receivedat: '2026-11-20T08:15:00+02:00', lot: 'L-1' }), 1);
    const undated = poReceiptsKind.parseRow(receipt(), 2);

    // Assess
    expect(dated).toEqual({
      ok: true,
      value: { poNumber: 'PO-1', sku: 'WIDGET', locationCode: 'A1', quantity: 10, quantityCell: '10', lot: 'L-1', receivedAt: '2026-11-20T06:15:00.000Z' },
    });
    expect(undated).toEqual({
      ok: true,
      value: { poNumber: 'PO-1', sku: 'WIDGET', locationCode: 'A1', quantity: 10, quantityCell: '10', lot: null, receivedAt: null },
    });
  });

  it('po-receipts says why it refuses a receivedAt before 1970, and accepts 1970-01-01T00:00:00Z itself', () => {
    // Act
    const early = poReceiptsKind.parseRow(receipt({ receivedat: '1969-07-20T20:17:40Z' }), 1);
    const epoch = poReceiptsKind.parseRow(receipt({ receivedat: '1970-01-01T00:00:00Z' }), 2);

    // Assess
    expect(early).toEqual({
      ok: false,
      errors: [expect.objectContaining({ column: 'receivedAt', code: 'invalid-value', message: 'receivedAt must not be before 1970-01-01T00:00:00Z.' })],
    });
    expect(epoch).toMatchObject({ ok: true, value: { receivedAt: '1970-01-01T00:00:00.000Z' } });
  });

  it('po-receipts accepts a receivedAt a minute ahead of the server clock (clocks differ)', () => {
    // Act
    const result = poReceiptsKind.parseRow(receipt({ receivedat: minutesFromNow(1) }), 1);

    // Assess
    expect(result.ok).toBe(true);
  });

  it.each([
    { label: 'no poNumber', cells: { ponumber: '' }, column: 'poNumber', code: 'required' },
    { label: 'no quantity', cells: { quantity: '' }, column: 'quantity', code: 'required' },
    { label: 'a quantity of 0', cells: { quantity: '0' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a quantity with 7 decimals', cells: { quantity: '1.0000001' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a receivedAt an hour in the future', cells: { receivedat: minutesFromNow(60) }, column: 'receivedAt', code: 'invalid-value' },
    { label: 'a receivedAt without a time', cells: { receivedat: '2026-11-20' }, column: 'receivedAt', code: 'invalid-value' },
    { label: 'a receivedAt without a zone', cells: { receivedat: '2026-11-20T08:15:00' }, column: 'receivedAt', code: 'invalid-value' },
    { label: 'a receivedAt in words', cells: { receivedat: 'yesterday' }, column: 'receivedAt', code: 'invalid-value' },
    { label: 'a receivedAt in month 13', cells: { receivedat: '2026-13-01T08:15:00Z' }, column: 'receivedAt', code: 'invalid-value' },
    {
      label: 'a receivedAt on a day that does not exist (February 30)',
      cells: { receivedat: '2026-02-30T08:15:00Z' },
      column: 'receivedAt',
      code: 'invalid-value',
    },
    {
      label: 'a receivedAt before 1970 (a movement id holds its time from 1970 on)',
      cells: { receivedat: '1969-12-31T23:59:59Z' },
      column: 'receivedAt',
      code: 'invalid-value',
    },
    { label: 'a receivedAt before 1970 once in UTC', cells: { receivedat: '1970-01-01T00:30:00+01:00' }, column: 'receivedAt', code: 'invalid-value' },
  ])('po-receipts reports $label', ({ cells, column, code }) => {
    // Act / Assess
    expect(problems(poReceiptsKind, receipt(cells))).toEqual([{ column, code }]);
  });

  it('builds reads a header-only row and a source row', () => {
    // Act
    const header = buildsKind.parseRow({ buildreference: 'B-1', bomcode: 'GADGET-BOM', quantity: '4', locationcode: 'A1' }, 1);
    const source = buildsKind.parseRow(build({ componentsku: 'RESIN', sourcelot: 'L1', sourcelocationcode: 'B1' }), 2);

    // Assess
    expect(header).toEqual({
      ok: true,
      value: {
        buildReference: 'B-1',
        bomCode: 'GADGET-BOM',
        quantity: 4,
        locationCode: 'A1',
        outputLot: null,
        componentSku: null,
        sourceLot: null,
        sourceLocationCode: null,
      },
    });
    expect(source).toEqual({
      ok: true,
      value: {
        buildReference: 'B-1',
        bomCode: 'GADGET-BOM',
        quantity: 4,
        locationCode: 'A1',
        outputLot: null,
        componentSku: 'RESIN',
        sourceLot: 'L1',
        sourceLocationCode: 'B1',
      },
    });
    expect(buildsKind.groupKeyOf?.(build({ buildreference: 'B-1 ' }))).toBe('B-1');
  });

  it.each([
    { label: 'no buildReference', cells: { buildreference: '' }, column: 'buildReference', code: 'required' },
    { label: 'no bomCode', cells: { bomcode: '' }, column: 'bomCode', code: 'required' },
    { label: 'no locationCode', cells: { locationcode: '' }, column: 'locationCode', code: 'required' },
    { label: 'a quantity of 0', cells: { quantity: '0' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a quantity with 7 decimals', cells: { quantity: '0.0000001' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a sourceLot without componentSku', cells: { sourcelot: 'L1' }, column: 'componentSku', code: 'required' },
    { label: 'a sourceLocationCode without componentSku', cells: { sourcelocationcode: 'B1' }, column: 'componentSku', code: 'required' },
  ])('builds reports $label', ({ cells, column, code }) => {
    // Act / Assess
    expect(problems(buildsKind, build(cells))).toEqual([{ column, code }]);
  });
});

describe('stock kinds: a row applied before', () => {
  const claim: VersionedRecord<StockEntry> = { record: { key: 'applied', jobId: 'imp_0', movementIds: ['mov_0'], appliedAt: STORED_AT }, version: 1 };
  const cases = [
    {
      kind: 'stock-adjustments',
      column: 'reference',
      run: (world: World, strategy: DuplicateStrategy) => decide(stockAdjustmentsKind, world, [adjustment()], { existing: claim, strategy, rowNumber: 4 }),
    },
    {
      kind: 'stock-transfers',
      column: 'reference',
      run: (world: World, strategy: DuplicateStrategy) => decide(stockTransfersKind, world, [transfer()], { existing: claim, strategy, rowNumber: 4 }),
    },
    {
      kind: 'stock-counts',
      column: 'countReference',
      run: (world: World, strategy: DuplicateStrategy) => decide(stockCountsKind, world, [count()], { existing: claim, strategy, rowNumber: 4 }),
    },
    {
      kind: 'po-receipts',
      column: 'poNumber',
      run: (world: World, strategy: DuplicateStrategy) => decide(poReceiptsKind, world, [receipt()], { existing: claim, strategy, rowNumber: 4 }),
    },
    {
      kind: 'builds',
      column: 'buildReference',
      run: (world: World, strategy: DuplicateStrategy) => decide(buildsKind, world, [build()], { existing: claim, strategy, rowNumber: 4 }),
    },
  ];

  function stockedWorld(): World {
    const world = new World([bomOf()]);
    world.stock(WIDGET, at(A1), 20);
    world.stock(RESIN, at(A1, 'L1'), 20);
    return world;
  }

  it.each(cases)('$kind: skip and update count it as skipped and move nothing', ({ run }) => {
    for (const strategy of ['skip', 'update'] as const) {
      // Prepare
      const world = stockedWorld();

      // Act
      const { decision, writes, events } = run(world, strategy);

      // Assess
      expect(decision, strategy).toEqual({ action: 'skipped', events: [] });
      expect(writes).toEqual([]);
      expect(events).toEqual([]);
      expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
    }
  });

  it.each(cases)('$kind: fail gives it the row error duplicate', ({ run, column }) => {
    // Prepare
    const world = stockedWorld();

    // Act
    const { decision } = run(world, 'fail');

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 4, column, code: 'duplicate' }) });
    expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
  });
});

describe('stock kinds: limits', () => {
  it('refuses a quantity above MAX_ON_HAND with invalid-number', () => {
    // Act
    const parsed = stockAdjustmentsKind.parseRow(adjustment({ quantitydelta: '10000000000000000' }), 1);

    // Assess
    expect(parsed).toMatchObject({ ok: false, errors: [{ column: 'quantityDelta', code: 'invalid-number' }] });
    expect(stockAdjustmentsKind.parseRow(adjustment({ quantitydelta: String(-MAX_ON_HAND) }), 1).ok).toBe(true);
  });
});
