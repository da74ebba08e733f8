import { describe, expect, it } from 'vitest';
import type { Bom, BuildProvenance } from '../../../lib/boms/domain/records.ts';
import { buildsKind } from '../../../lib/imports/domain/builds-kind.ts';
import { poReceiptsKind } from '../../../lib/imports/domain/po-receipts-kind.ts';
import { stockAdjustmentsKind } from '../../../lib/imports/domain/stock-adjustments-kind.ts';
import { stockCountsKind } from '../../../lib/imports/domain/stock-counts-kind.ts';
import { stockTransfersKind } from '../../../lib/imports/domain/stock-transfers-kind.ts';
import { hasRoomFor, newReceipt, withReceiptLine } from '../../../lib/stock/domain/documents.ts';
import { documentKey, MAX_DOCUMENT_LINE_BYTES, MAX_DOCUMENT_LINES } from '../../../lib/stock/domain/records.ts';
import {
  A1,
  adjustment,
  at,
  B1,
  bomOf,
  build,
  claimOf,
  count,
  decide,
  GADGET,
  JOB,
  NOW,
  parsed,
  receipt,
  RESIN,
  transfer,
  typesOf,
  WIDGET,
  World,
} from '../../support/stock-world.ts';

/**
 * The stock flows' decisions (lib/stock/domain/: adjustments, transfers, counts, receipts,
 * builds), through the import kinds that adapt them: what a unit decides against a real
 * StockLedger over in-memory stored stock. Whole files run through the pipeline in
 * test/e2e/stock-flows.test.ts.
 */

describe('stock kinds: lots', () => {
  const cases = [
    {
      kind: 'stock-adjustments',
      required: () => decide(stockAdjustmentsKind, new World(), [adjustment({ sku: 'RESIN', quantitydelta: '1' })]),
      refused: () => decide(stockAdjustmentsKind, new World(), [adjustment({ quantitydelta: '1', lot: 'L1' })]),
    },
    {
      kind: 'stock-transfers',
      required: () => decide(stockTransfersKind, new World(), [transfer({ sku: 'RESIN' })]),
      refused: () => decide(stockTransfersKind, new World(), [transfer({ lot: 'L1' })]),
    },
    {
      kind: 'stock-counts',
      required: () => decide(stockCountsKind, new World(), [count({ sku: 'RESIN' })]),
      refused: () => decide(stockCountsKind, new World(), [count({ lot: 'L1' })]),
    },
    {
      kind: 'po-receipts',
      required: () => decide(poReceiptsKind, new World(), [receipt({ sku: 'RESIN' })]),
      refused: () => decide(poReceiptsKind, new World(), [receipt({ lot: 'L1' })]),
    },
  ];

  it.each(cases)('$kind: lot-required for an item tracked by lot without a lot, lot-not-allowed for another with one', ({ required, refused }) => {
    // Act
    const missing = required();
    const extra = refused();

    // Assess
    expect(missing.decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 1, column: 'lot', code: 'lot-required', value: '' }) });
    expect(extra.decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 1, column: 'lot', code: 'lot-not-allowed', value: 'L1' }) });
  });

  it('po-receipts moves stock into the lot of an item tracked by lot', () => {
    // Prepare
    const world = new World();

    // Act
    const { decision } = decide(poReceiptsKind, world, [receipt({ sku: 'RESIN', lot: 'L-0425', quantity: '2.5' })]);

    // Assess
    expect(decision.action).toBe('created');
    expect(world.onHand(RESIN, at(A1, 'L-0425'))).toBe(2.5);
    expect(world.onHand(RESIN, at(A1, null))).toBe(0);
  });
});

describe('stock-adjustments: decideUnit', () => {
  it('adds stock with a positive delta and claims the row with its movement', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 2);

    // Act
    const { decision, writes, events } = decide(stockAdjustmentsKind, world, [adjustment({ quantitydelta: '2.5', reason: 'found on the shelf' })]);

    // Assess
    expect(decision).toEqual({
      action: 'created',
      writes: [
        {
          op: 'claim-entry',
          entry: { key: stockAdjustmentsKind.naturalKeyOf(parsed(stockAdjustmentsKind, adjustment())), jobId: JOB, movementIds: ['mov_1'], appliedAt: NOW },
        },
      ],
      events: [],
    });
    expect(world.onHand(WIDGET, at(A1))).toBe(4.5);
    expect(writes).toEqual([
      {
        op: 'record-movement',
        movement: expect.objectContaining({ id: 'mov_1', quantity: 2.5, type: 'adjustment', reference: 'ADJ-1', toLocationId: A1.id }),
        legs: [{ stockRecordId: world.ledger.recordAt(WIDGET, at(A1)).id, quantity: 2.5 }],
      },
    ]);
    expect(typesOf(events)).toEqual(['movement.created', 'stock.changed']);
    expect(events[1]?.data).toMatchObject({ previousQuantity: 2, quantity: 4.5, delta: 2.5, reason: 'found on the shelf' });
  });

  it('takes stock with a negative delta, with low-stock when the item crosses its reorder point', () => {
    // Prepare: 6 WIDGET, reorder point 5
    const world = new World();
    world.stock(WIDGET, at(A1), 6);

    // Act
    const { decision, events } = decide(stockAdjustmentsKind, world, [adjustment({ quantitydelta: '-3' })]);

    // Assess
    expect(decision.action).toBe('created');
    expect(world.onHand(WIDGET, at(A1))).toBe(3);
    expect(typesOf(events)).toEqual(['movement.created', 'stock.changed', 'low-stock']);
    expect(events[1]?.data).toMatchObject({ delta: -3, reason: 'damaged' });
  });

  it('refuses to take more than is on hand with insufficient-stock, and moves nothing', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 5);

    // Act
    const { decision } = decide(stockAdjustmentsKind, world, [adjustment({ quantitydelta: '-6' })], { rowNumber: 3 });

    // Assess
    expect(decision).toEqual({
      action: 'failed',
      error: {
        rowNumber: 3,
        column: 'quantityDelta',
        value: '-6',
        code: 'insufficient-stock',
        message: expect.stringMatching(/has 5 available \(on hand less what reservations hold\); 6 is more than that/),
      },
    });
    expect(world.onHand(WIDGET, at(A1))).toBe(5);
    expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
  });

  it('sees what earlier rows of the chunk did', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 5);

    // Act
    const first = decide(stockAdjustmentsKind, world, [adjustment({ reference: 'ADJ-1', quantitydelta: '-4' })], { rowNumber: 1 });
    const second = decide(stockAdjustmentsKind, world, [adjustment({ reference: 'ADJ-2', quantitydelta: '-2' })], { rowNumber: 2 });

    // Assess
    expect(first.decision.action).toBe('created');
    expect(second.decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 2, code: 'insufficient-stock' }) });
    expect(world.onHand(WIDGET, at(A1))).toBe(1);
  });
});

describe('stock-transfers: decideUnit', () => {
  it('moves stock between locations as one movement with two legs, without low-stock', () => {
    // Prepare: 6 WIDGET at A1, reorder point 5
    const world = new World();
    const source = world.stock(WIDGET, at(A1), 6);

    // Act
    const { decision, writes, events } = decide(stockTransfersKind, world, [transfer({ quantity: '4' })]);

    // Assess
    expect(claimOf(decision)?.movementIds).toEqual(['mov_1']);
    expect(world.onHand(WIDGET, at(A1))).toBe(2);
    expect(world.onHand(WIDGET, at(B1))).toBe(4);
    expect(typesOf(events)).toEqual(['movement.created', 'stock.changed', 'stock.changed']);
    expect(writes).toEqual([
      {
        op: 'record-movement',
        movement: expect.objectContaining({ id: 'mov_1', type: 'transfer', quantity: 4, fromLocationId: A1.id, toLocationId: B1.id }),
        legs: [
          { stockRecordId: source.id, quantity: -4 },
          { stockRecordId: world.ledger.recordAt(WIDGET, at(B1)).id, quantity: 4 },
        ],
      },
    ]);
  });

  it('refuses to move more than the source has with insufficient-stock', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 3);

    // Act
    const { decision } = decide(stockTransfersKind, world, [transfer({ quantity: '3.5' })]);

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ column: 'quantity', value: '3.5', code: 'insufficient-stock' }) });
    expect(world.onHand(WIDGET, at(A1))).toBe(3);
    expect(world.onHand(WIDGET, at(B1))).toBe(0);
  });
});

describe('stock-counts: decideUnit', () => {
  it('sets on-hand to the counted quantity: a variance movement only when it differs, a count line for every row', () => {
    // Prepare: 12 WIDGET at A1, 5 RESIN L1 at A1, nothing of RESIN L2
    const world = new World();
    world.stock(WIDGET, at(A1), 12);
    world.stock(RESIN, at(A1, 'L1'), 5);

    // Act
    const lower = decide(stockCountsKind, world, [count({ countedquantity: '8' })], { rowNumber: 1 });
    const same = decide(stockCountsKind, world, [count({ sku: 'RESIN', lot: 'L1', countedquantity: '5' })], { rowNumber: 2 });
    const higher = decide(stockCountsKind, world, [count({ sku: 'RESIN', lot: 'L2', countedquantity: '0.75' })], { rowNumber: 3 });

    // Assess
    expect(world.onHand(WIDGET, at(A1))).toBe(8);
    expect(world.onHand(RESIN, at(A1, 'L1'))).toBe(5);
    expect(world.onHand(RESIN, at(A1, 'L2'))).toBe(0.75);
    expect(lower.writes).toEqual([
      {
        op: 'record-movement',
        movement: expect.objectContaining({ quantity: 4, type: 'count', fromLocationId: A1.id, reference: 'CNT-1' }),
        legs: [{ stockRecordId: expect.any(String), quantity: -4 }],
      },
    ]);
    expect(typesOf(lower.events)).toEqual(['movement.created', 'stock.changed']);
    expect(same.writes).toEqual([]);
    expect(same.events).toEqual([]);
    expect(claimOf(same.decision)?.movementIds).toEqual([]);
    expect(higher.writes).toEqual([
      {
        op: 'record-movement',
        movement: expect.objectContaining({ quantity: 0.75, type: 'count', toLocationId: A1.id }),
        legs: [{ stockRecordId: world.ledger.recordAt(RESIN, at(A1, 'L2')).id, quantity: 0.75 }],
      },
    ]);
    const document = world.ledger.document(documentKey(JOB, 'stock-count', 'CNT-1'));
    expect(document).toMatchObject({ type: 'stock-count', locationId: A1.id, closed: false });
    expect(document?.lines).toEqual([
      { itemId: WIDGET.id, sku: 'WIDGET', lot: null, expected: 12, counted: 8, delta: -4 },
      { itemId: RESIN.id, sku: 'RESIN', lot: 'L1', expected: 5, counted: 5, delta: 0 },
      { itemId: RESIN.id, sku: 'RESIN', lot: 'L2', expected: 0, counted: 0.75, delta: 0.75 },
    ]);
  });

  it('announces the count with count.completed once its last row is handled', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 12);
    decide(stockCountsKind, world, [count({ countedquantity: '12' })]);

    // Act
    world.ledger.begin();
    world.ledger.closeDocument(documentKey(JOB, 'stock-count', 'CNT-1'), NOW);
    const { events } = world.ledger.endUnit();

    // Assess
    expect(events).toEqual([
      {
        type: 'count.completed',
        occurredAt: NOW,
        data: {
          countId: expect.stringMatching(/^cnt_/),
          countReference: 'CNT-1',
          locationId: A1.id,
          lines: [{ itemId: WIDGET.id, sku: 'WIDGET', lot: null, expected: 12, counted: 12, delta: 0 }],
        },
      },
    ]);
  });

  it('emits low-stock when the counted quantity takes the item below its reorder point', () => {
    // Prepare: 6 WIDGET, reorder point 5
    const world = new World();
    world.stock(WIDGET, at(A1), 6);

    // Act
    const { events } = decide(stockCountsKind, world, [count({ countedquantity: '4.5' })]);

    // Assess
    expect(typesOf(events)).toEqual(['movement.created', 'stock.changed', 'low-stock']);
    expect(events[2]?.data).toMatchObject({ onHand: 4.5, reorderPoint: 5 });
  });

  it('refuses a row of the same count at another location with invalid-value', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(B1), 3);
    decide(stockCountsKind, world, [count()], { rowNumber: 1 });

    // Act
    const { decision } = decide(stockCountsKind, world, [count({ locationcode: 'B1', countedquantity: '1' })], { rowNumber: 2 });

    // Assess
    expect(decision).toEqual({
      action: 'failed',
      error: expect.objectContaining({ rowNumber: 2, column: 'locationCode', value: 'B1', code: 'invalid-value' }),
    });
    expect(world.onHand(WIDGET, at(B1))).toBe(3);
    expect(world.ledger.document(documentKey(JOB, 'stock-count', 'CNT-1'))?.lines).toHaveLength(1);
  });
});

describe('po-receipts: decideUnit', () => {
  it('receives each row into one receipt per PO, dated receivedAt, announced once with po.received', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 1);

    // Act
    const first = decide(poReceiptsKind, world, [receipt({ quantity: '10', receivedat: '2026-11-20T08:15:00Z' })], { rowNumber: 1 });
    const second = decide(poReceiptsKind, world, [receipt({ sku: 'RESIN', lot: 'L1', locationcode: 'B1', quantity: '0.5' })], { rowNumber: 2 });
    world.ledger.begin();
    world.ledger.closeDocument(documentKey(JOB, 'po-receipt', 'PO-1'), NOW);
    const closing = world.ledger.endUnit();

    // Assess
    expect(world.onHand(WIDGET, at(A1))).toBe(11);
    expect(world.onHand(RESIN, at(B1, 'L1'))).toBe(0.5);
    expect(typesOf(first.events)).toEqual(['movement.created', 'stock.changed']);
    expect(first.events.every((event) => event.occurredAt === '2026-11-20T08:15:00.000Z')).toBe(true);
    expect(second.events.every((event) => event.occurredAt === NOW)).toBe(true);
    expect(claimOf(first.decision)).toEqual({
      key: poReceiptsKind.naturalKeyOf(parsed(poReceiptsKind, receipt())),
      jobId: JOB,
      movementIds: ['mov_1'],
      appliedAt: NOW,
    });
    expect(closing.events).toEqual([
      {
        type: 'po.received',
        occurredAt: NOW,
        data: {
          poNumber: 'PO-1',
          receiptId: expect.stringMatching(/^rcp_/),
          lines: [
            { itemId: WIDGET.id, sku: 'WIDGET', locationId: A1.id, quantity: 10, lot: null, stockRecordId: 'stk_WIDGET_A1_' },
            { itemId: RESIN.id, sku: 'RESIN', locationId: B1.id, quantity: 0.5, lot: 'L1', stockRecordId: world.ledger.recordAt(RESIN, at(B1, 'L1')).id },
          ],
        },
      },
    ]);
  });
});

describe('builds: decideUnit', () => {
  /** 10 WIDGET at A1; RESIN 1.5 in L1 at A1 and 5 in L2 at B1. */
  function stockedWorld(bom: Bom = bomOf()): World {
    const world = new World([bom]);
    world.stock(WIDGET, at(A1), 10);
    world.stock(RESIN, at(A1, 'L1'), 1.5);
    world.stock(RESIN, at(B1, 'L2'), 5);
    return world;
  }
  const resinSources = [build({ componentsku: 'RESIN', sourcelot: 'L1' }), build({ componentsku: 'RESIN', sourcelot: 'L2', sourcelocationcode: 'B1' })];

  it('consumes line quantity × quantity ÷ outputQuantity × (1 + scrap), from the named sources in order, and produces the target', () => {
    // Prepare: 4 GADGET need 3 × 4 / 2 = 6 WIDGET and 1 × 4 / 2 × 1.1 = 2.2 RESIN
    const world = stockedWorld();

    // Act
    const { decision, writes, events } = decide(buildsKind, world, resinSources, { rowNumber: 5 });

    // Assess
    expect(world.onHand(WIDGET, at(A1))).toBe(4);
    expect(world.onHand(RESIN, at(A1, 'L1'))).toBe(0);
    expect(world.onHand(RESIN, at(B1, 'L2'))).toBe(4.3);
    expect(world.onHand(GADGET, at(A1))).toBe(4);
    if (decision.action !== 'created') throw new Error(`expected a build, got ${JSON.stringify(decision)}`);
    const provenance = decision.writes.find((write): write is { op: 'create-build'; build: BuildProvenance } => write.op === 'create-build')?.build;
    expect(provenance).toEqual({
      id: expect.stringMatching(/^bld_/),
      bomId: 'bom_gadget',
      revision: { id: 'rev_3', number: 3 },
      reference: 'B-1',
      quantity: 4,
      outputItemId: GADGET.id,
      outputStockRecordId: world.ledger.recordAt(GADGET, at(A1)).id,
      outputLot: null,
      locationId: A1.id,
      consumed: [
        { sourceStockRecordId: 'stk_WIDGET_A1_', itemId: WIDGET.id, quantity: 6, lot: null },
        { sourceStockRecordId: 'stk_RESIN_A1_L1', itemId: RESIN.id, quantity: 1.5, lot: 'L1' },
        { sourceStockRecordId: 'stk_RESIN_B1_L2', itemId: RESIN.id, quantity: 0.7, lot: 'L2' },
      ],
      builtAt: NOW,
    });
    expect(claimOf(decision)).toEqual({
      key: buildsKind.naturalKeyOf(parsed(buildsKind, build())),
      jobId: JOB,
      movementIds: ['mov_1', 'mov_2', 'mov_3', 'mov_4'],
      buildId: provenance?.id,
      appliedAt: NOW,
    });
    expect(writes.map((write) => (write.op === 'record-movement' ? [write.movement.type, write.legs] : write.op))).toEqual([
      ['consumption', [{ stockRecordId: 'stk_WIDGET_A1_', quantity: -6 }]],
      ['consumption', [{ stockRecordId: 'stk_RESIN_A1_L1', quantity: -1.5 }]],
      ['consumption', [{ stockRecordId: 'stk_RESIN_B1_L2', quantity: -0.7 }]],
      ['production', [{ stockRecordId: world.ledger.recordAt(GADGET, at(A1)).id, quantity: 4 }]],
    ]);
    // WIDGET goes from 10 to 4, below its reorder point 5
    expect(typesOf(events)).toEqual([
      'movement.created',
      'stock.changed',
      'low-stock',
      'movement.created',
      'stock.changed',
      'movement.created',
      'stock.changed',
      'movement.created',
      'stock.changed',
    ]);
  });

  it('draws no more than it needs: a first source that has enough is the only one used', () => {
    // Prepare: 2 GADGET need 1.1 RESIN; L1 has 1.5
    const world = stockedWorld();

    // Act
    const { decision } = decide(
      buildsKind,
      world,
      resinSources.map((raw) => ({ ...raw, quantity: '2' })),
    );

    // Assess
    expect(decision.action).toBe('created');
    expect(world.onHand(RESIN, at(A1, 'L1'))).toBe(0.4);
    expect(world.onHand(RESIN, at(B1, 'L2'))).toBe(5);
    expect(world.onHand(WIDGET, at(A1))).toBe(7);
  });

  it('rounds what a line needs to 6 decimals', () => {
    // Prepare: 1 GADGET needs 0.333333 × 1 / 1 × 1.125 = 0.374999625 → 0.375 WIDGET
    const bom = bomOf({
      outputQuantity: 1,
      lines: [{ lineId: 'bln_widget', itemId: WIDGET.id, quantity: 0.333333, unit: null, scrapPercent: 12.5, notes: null }],
    });
    const world = stockedWorld(bom);

    // Act
    const { decision } = decide(buildsKind, world, [build({ quantity: '1' })]);

    // Assess
    expect(decision.action).toBe('created');
    expect(world.onHand(WIDGET, at(A1))).toBe(9.625);
  });

  it('rounds a need that falls exactly halfway half up (scaleQuantity)', () => {
    // Prepare: 1 GADGET needs 0.0003 × 1 / 2 × 1.05 = 0.0001575 → 0.000158 WIDGET
    const bom = bomOf({ outputQuantity: 2, lines: [{ lineId: 'bln_widget', itemId: WIDGET.id, quantity: 0.0003, unit: null, scrapPercent: 5, notes: null }] });
    const world = stockedWorld(bom);

    // Act
    const { writes } = decide(buildsKind, world, [build({ quantity: '1' })]);

    // Assess
    expect(writes[0]).toEqual({
      op: 'record-movement',
      movement: expect.objectContaining({ type: 'consumption', quantity: 0.000158 }),
      legs: [{ stockRecordId: expect.any(String), quantity: -0.000158 }],
    });
    expect(world.onHand(WIDGET, at(A1))).toBe(9.999842);
  });

  it.each([
    { label: 'archived', bom: bomOf({ archived: true }) },
    { label: 'obsolete', bom: bomOf({ status: 'obsolete' }) },
  ])('refuses an $label BOM and moves nothing', ({ bom }) => {
    // Prepare
    const world = stockedWorld(bom);

    // Act
    const { decision } = decide(buildsKind, world, resinSources);

    // Assess
    expect(decision).toEqual({
      action: 'failed',
      error: expect.objectContaining({ rowNumber: 1, column: 'bomCode', value: 'GADGET-BOM', code: 'invalid-value' }),
    });
    expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
  });

  it('rests on the BOM revision it used: the chunk checks the BOM at the version read, once however many builds use it', () => {
    // Prepare
    const world = stockedWorld();

    // Act: two builds of the same BOM in one chunk
    const decisions = ['B-1', 'B-2'].map(
      (reference) =>
        decide(
          buildsKind,
          world,
          resinSources.map((raw) => ({ ...raw, buildreference: reference, quantity: '1' })),
        ).decision.action,
    );

    // Assess
    expect(decisions).toEqual(['created', 'created']);
    expect(world.ledger.flush().filter((write) => write.op === 'check-bom')).toEqual([{ op: 'check-bom', bomId: 'bom_gadget', expectedVersion: 1 }]);
  });

  it('builds from a draft BOM', () => {
    // Prepare
    const world = stockedWorld(bomOf({ status: 'draft' }));

    // Act
    const { decision } = decide(buildsKind, world, resinSources);

    // Assess
    expect(decision.action).toBe('created');
    expect(world.onHand(GADGET, at(A1))).toBe(4);
  });

  it('fails the whole build with insufficient-stock when a component is short at its sources', () => {
    // Prepare: 6 GADGET need 9 WIDGET (10 there) and 3.3 RESIN (1.5 + 0.5 at the sources)
    const world = new World([bomOf()]);
    world.stock(WIDGET, at(A1), 10);
    world.stock(RESIN, at(A1, 'L1'), 1.5);
    world.stock(RESIN, at(B1, 'L2'), 0.5);

    // Act
    const { decision } = decide(
      buildsKind,
      world,
      resinSources.map((raw) => ({ ...raw, quantity: '6' })),
      { rowNumber: 8 },
    );

    // Assess: the error names the first source row of the component; the WIDGET consumed is rolled back with the rest
    expect(decision).toEqual({
      action: 'failed',
      error: expect.objectContaining({
        rowNumber: 8,
        column: 'quantity',
        code: 'insufficient-stock',
        message: expect.stringMatching(/RESIN.* has 2 available .*; 3\.3 is more than that/),
      }),
    });
    expect(world.onHand(WIDGET, at(A1))).toBe(10);
    expect(world.onHand(RESIN, at(A1, 'L1'))).toBe(1.5);
    expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
  });

  it('fails with insufficient-stock when a component without sources is short at the build location', () => {
    // Prepare: 8 GADGET need 12 WIDGET; 10 at A1 (and more at B1, which is not drawn from)
    const world = stockedWorld();
    world.stock(WIDGET, at(B1), 50);

    // Act
    const { decision } = decide(
      buildsKind,
      world,
      resinSources.map((raw) => ({ ...raw, quantity: '8' })),
    );

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ code: 'insufficient-stock' }) });
    expect(world.onHand(WIDGET, at(A1))).toBe(10);
  });

  describe('a component tracked by lot without source lines (issue 24, item 2)', () => {
    /** 10 WIDGET at A1; RESIN at A1: L-OLD drained (first received), L-MID 1 (then), L-NEW 5 (last); RESIN L-B1 at B1, older than all. */
    function lotWorld(): World {
      const world = new World([bomOf()]);
      world.stock(WIDGET, at(A1), 10);
      world.stock(RESIN, at(B1, 'L-B1'), 9, '2026-10-01T00:00:00.000Z');
      world.stock(RESIN, at(A1, 'L-NEW'), 5, '2026-11-03T00:00:00.000Z');
      world.stock(RESIN, at(A1, 'L-OLD'), 0, '2026-11-01T00:00:00.000Z');
      world.stock(RESIN, at(A1, 'L-MID'), 1, '2026-11-02T00:00:00.000Z');
      return world;
    }

    it('is drawn oldest lot first at locationCode, split across lots, each lot its own movement, stock.changed and consumed line', () => {
      // Prepare: 4 GADGET need 6 WIDGET and 2.2 RESIN
      const world = lotWorld();

      // Act
      const { decision, events } = decide(buildsKind, world, [build()]);

      // Assess: L-OLD is empty, L-MID gives its 1, L-NEW the other 1.2; B1 is not drawn from
      if (decision.action !== 'created') throw new Error(`expected a build, got ${JSON.stringify(decision)}`);
      const provenance = decision.writes.find((write): write is { op: 'create-build'; build: BuildProvenance } => write.op === 'create-build')?.build;
      expect(provenance?.consumed).toEqual([
        { sourceStockRecordId: 'stk_WIDGET_A1_', itemId: WIDGET.id, quantity: 6, lot: null },
        { sourceStockRecordId: 'stk_RESIN_A1_L-MID', itemId: RESIN.id, quantity: 1, lot: 'L-MID' },
        { sourceStockRecordId: 'stk_RESIN_A1_L-NEW', itemId: RESIN.id, quantity: 1.2, lot: 'L-NEW' },
      ]);
      expect([world.onHand(RESIN, at(A1, 'L-MID')), world.onHand(RESIN, at(A1, 'L-NEW')), world.onHand(RESIN, at(B1, 'L-B1'))]).toEqual([0, 3.8, 9]);
      const changed = events.filter((event) => event.type === 'stock.changed').map((event) => event.data as { lot: string | null; delta: number });
      expect(changed.map(({ lot, delta }) => [lot, delta])).toEqual([
        [null, -6],
        ['L-MID', -1],
        ['L-NEW', -1.2],
        [null, 4],
      ]);
      const moved = events
        .filter((event) => event.type === 'movement.created')
        .map((event) => (event.data as { movement: { lot: string | null; quantity: number } }).movement);
      expect(moved.map(({ lot, quantity }) => [lot, quantity])).toEqual([
        [null, 6],
        ['L-MID', 1],
        ['L-NEW', 1.2],
        [null, 4],
      ]);
      // The drained lot is passed over without being read for the commit to check
      expect(world.ledger.flush().some((write) => write.op === 'check-stock-record' && write.record.lot === 'L-OLD')).toBe(false);
    });

    it('draws from the lot first received even when an earlier unit of the chunk created a newer one', () => {
      // Prepare: a first build of the chunk takes all of L-MID; the second must go on to L-NEW
      const world = lotWorld();
      decide(buildsKind, world, [build({ buildreference: 'B-0', quantity: '1' })]);

      // Act: 2 GADGET need 1.1 RESIN
      const { decision } = decide(buildsKind, world, [build({ quantity: '2' })]);

      // Assess: B-0 took 0.55 of L-MID; B-1 takes its 0.45 and 0.65 of L-NEW
      expect(decision.action).toBe('created');
      expect([world.onHand(RESIN, at(A1, 'L-MID')), world.onHand(RESIN, at(A1, 'L-NEW'))]).toEqual([0, 4.35]);
    });

    it('fails the whole build with insufficient-stock when its lots at locationCode hold too little together', () => {
      // Prepare: 12 GADGET need 6.6 RESIN; A1's lots hold 6 (B1's are not drawn from); 18 WIDGET are there
      const world = lotWorld();
      world.stock(WIDGET, at(A1), 18);

      // Act
      const { decision } = decide(buildsKind, world, [build({ quantity: '12' })]);

      // Assess
      expect(decision).toEqual({
        action: 'failed',
        error: expect.objectContaining({ code: 'insufficient-stock', message: expect.stringMatching(/RESIN.* has 6 available .*; 6\.6/) }),
      });
      expect([world.onHand(RESIN, at(A1, 'L-MID')), world.onHand(RESIN, at(A1, 'L-NEW'))]).toEqual([1, 5]);
    });

    it('draws from as many lots as it needs: the chunk decision (dry runs) has no one-transaction cap', () => {
      // Prepare: WIDGET at A1, and RESIN spread over 30 lots of 0.05 there
      const world = new World([bomOf()]);
      world.stock(WIDGET, at(A1), 100);
      for (let lot = 1; lot <= 30; lot += 1) world.stock(RESIN, at(A1, `L-${lot}`), 0.05, new Date(Date.UTC(2026, 10, 1, lot)).toISOString());

      // Act: 2 GADGET need 1.1 RESIN: 22 lots, 23 sources with WIDGET (one more than a transaction held before builds were jobs)
      const { decision } = decide(buildsKind, world, [build({ quantity: '2' })]);

      // Assess
      expect(decision.action).toBe('created');
      expect(world.onHand(RESIN, at(A1, 'L-22'))).toBe(0);
      expect(world.onHand(RESIN, at(A1, 'L-23'))).toBe(0.05);
    });

    it('is drawn from the source lines when the rows name them (they override the lot rule)', () => {
      // Prepare
      const world = lotWorld();

      // Act: 2 GADGET need 1.1 RESIN, named from L-NEW
      const { decision } = decide(buildsKind, world, [build({ quantity: '2', componentsku: 'RESIN', sourcelot: 'L-NEW' })]);

      // Assess
      expect(decision.action).toBe('created');
      expect([world.onHand(RESIN, at(A1, 'L-MID')), world.onHand(RESIN, at(A1, 'L-NEW'))]).toEqual([1, 3.9]);
    });
  });

  it('refuses a sourceLot for a component not tracked by lot, and an outputLot for a target not tracked by lot', () => {
    // Prepare
    const world = stockedWorld();

    // Act
    const source = decide(buildsKind, world, [...resinSources, build({ componentsku: 'WIDGET', sourcelot: 'L9' })]);
    const output = decide(
      buildsKind,
      world,
      resinSources.map((raw) => ({ ...raw, outputlot: 'OUT-1' })),
    );

    // Assess
    expect(source.decision).toEqual({
      action: 'failed',
      error: expect.objectContaining({ rowNumber: 3, column: 'sourceLot', value: 'L9', code: 'lot-not-allowed' }),
    });
    expect(output.decision).toEqual({ action: 'failed', error: expect.objectContaining({ column: 'outputLot', value: 'OUT-1', code: 'lot-not-allowed' }) });
    expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
  });

  it('refuses a componentSku that is not a component of the BOM with invalid-value', () => {
    // Prepare
    const world = stockedWorld();

    // Act
    const { decision } = decide(buildsKind, world, [...resinSources, build({ componentsku: 'GADGET' })]);

    // Assess
    expect(decision).toEqual({
      action: 'failed',
      error: expect.objectContaining({ rowNumber: 3, column: 'componentSku', value: 'GADGET', code: 'invalid-value' }),
    });
  });

  it('refuses rows of one build that disagree on its quantity with invalid-value', () => {
    // Prepare
    const world = stockedWorld();

    // Act
    const { decision } = decide(buildsKind, world, [
      build({ componentsku: 'RESIN', sourcelot: 'L1' }),
      build({ componentsku: 'RESIN', sourcelot: 'L2', sourcelocationcode: 'B1', quantity: '5' }),
    ]);

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 2, column: 'quantity', code: 'invalid-value' }) });
  });
});

describe('stock kinds: limits', () => {
  it('keeps a receipt within its byte budget however long its lines are (multi-byte lots)', () => {
    // Prepare: lines of about 600 bytes each
    let receipt = newReceipt('imp_1', 'PO-1', '2026-11-22T10:00:00.000Z');
    const line = (index: number) => ({
      itemId: 'itm_1',
      sku: 'S'.repeat(64),
      locationId: 'loc_1',
      quantity: 1,
      lot: `${'🦀'.repeat(60)}${index}`,
      stockRecordId: `stk_${index}`,
    });

    // Act
    let index = 0;
    while (hasRoomFor(receipt, line(index))) receipt = withReceiptLine(receipt, line(index++));

    // Assess: stopped by bytes before the line count, and the whole receipt fits a stored item
    expect(receipt.lines.length).toBeLessThan(MAX_DOCUMENT_LINES);
    expect(receipt.linesBytes).toBeLessThanOrEqual(MAX_DOCUMENT_LINE_BYTES);
    expect(Buffer.byteLength(JSON.stringify(receipt))).toBeLessThan(400 * 1024);
  });
});
