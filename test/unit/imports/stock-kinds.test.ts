import { describe, expect, it } from 'vitest';
import type { Bom, BuildProvenance } from '../../../lib/domain/boms/records.ts';
import type { EventDraft } from '../../../lib/domain/events/types.ts';
import { buildsKind } from '../../../lib/domain/imports/builds-kind.ts';
import type { DecideContext, ImportKindDefinition, ImportUnit, RecordWrite, ReferenceEntity, ReferenceTypes, UnitDecision } from '../../../lib/domain/imports/kind-definition.ts';
import { poReceiptsKind } from '../../../lib/domain/imports/po-receipts-kind.ts';
import { stockAdjustmentsKind } from '../../../lib/domain/imports/stock-adjustments-kind.ts';
import { stockCountsKind } from '../../../lib/domain/imports/stock-counts-kind.ts';
import { stockTransfersKind } from '../../../lib/domain/imports/stock-transfers-kind.ts';
import type { DuplicateStrategy, RawRow } from '../../../lib/domain/imports/types.ts';
import type { Item } from '../../../lib/domain/inventory/item.ts';
import type { Location } from '../../../lib/domain/inventory/location.ts';
import type { VersionedRecord } from '../../../lib/domain/inventory/records.ts';
import { stockRecordKey, type StockRecord } from '../../../lib/domain/inventory/stock.ts';
import { StockLedger, type StockBase, type StockSide } from '../../../lib/domain/stock/ledger.ts';
import { hasRoomFor, newReceipt, withReceiptLine } from '../../../lib/domain/stock/documents.ts';
import { documentKey, MAX_DOCUMENT_LINE_BYTES, MAX_DOCUMENT_LINES, MAX_ON_HAND, type ItemStock, type StockDocument, type StockEntry } from '../../../lib/domain/stock/records.ts';

/**
 * The five kinds that move stock (docs/inventory.md "Import kinds"): their cell rules, and what a
 * unit decides against a real StockLedger over in-memory stored stock. Whole files run through
 * the pipeline in test/e2e/stock-flows.test.ts.
 */

const NOW = '2026-11-22T10:00:00.000Z';
const STORED_AT = '2026-11-01T08:00:00.000Z';
const JOB = 'imp_1';

function itemOf(id: string, sku: string, overrides: Partial<Item> = {}): Item {
  return { id, sku, name: sku, unit: 'ea', description: null, category: null, barcode: null, reorderPoint: null, trackingMode: 'none', createdAt: STORED_AT, updatedAt: STORED_AT, ...overrides };
}

function locationOf(id: string, code: string): Location {
  return { id, code, name: code, type: 'bin', parentCode: null, createdAt: STORED_AT, updatedAt: STORED_AT };
}

const WIDGET = itemOf('itm_widget', 'WIDGET', { reorderPoint: 5 });
const RESIN = itemOf('itm_resin', 'RESIN', { trackingMode: 'lot' });
const GADGET = itemOf('itm_gadget', 'GADGET');
const A1 = locationOf('loc_a1', 'A1');
const B1 = locationOf('loc_b1', 'B1');
const at = (location: Location, lot: string | null = null): StockSide => ({ location, lot });

/** GADGET-BOM: 2 GADGET from 3 WIDGET and 1 RESIN (10 % scrap). */
function bomOf(overrides: Partial<Bom> = {}): Bom {
  return {
    id: 'bom_gadget',
    code: 'GADGET-BOM',
    name: 'Gadget',
    targetItemId: GADGET.id,
    status: 'active',
    outputQuantity: 2,
    unit: null,
    notes: null,
    lines: [
      { lineId: 'bln_widget', itemId: WIDGET.id, quantity: 3, unit: null, scrapPercent: 0, notes: null },
      { lineId: 'bln_resin', itemId: RESIN.id, quantity: 1, unit: null, scrapPercent: 10, notes: null },
    ],
    archived: false,
    revision: { id: 'rev_3', number: 3 },
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
    ...overrides,
  };
}

/** Stored stock as a StockBase reads it, the organization's records, and a ledger over them. */
class World implements StockBase {
  private readonly records = new Map<string, VersionedRecord<StockRecord>>();
  private readonly totals = new Map<string, VersionedRecord<ItemStock>>();
  private readonly documents = new Map<string, VersionedRecord<StockDocument>>();
  private readonly references: { [E in ReferenceEntity]: Map<string, VersionedRecord<ReferenceTypes[E]>> } = {
    item: new Map(),
    location: new Map(),
    'stock-record': new Map(),
    bom: new Map(),
  };
  private created = 0;
  private movements = 0;
  readonly ledger = new StockLedger(this, { stockRecord: () => `stk_new${(this.created += 1)}`, movement: () => `mov_${(this.movements += 1)}` });

  constructor(boms: Bom[] = []) {
    for (const item of [WIDGET, RESIN, GADGET]) this.references.item.set(item.sku, { record: item, version: 1 });
    for (const location of [A1, B1]) this.references.location.set(location.code, { record: location, version: 1 });
    for (const bom of boms) this.references.bom.set(bom.code, { record: bom, version: 1 });
  }

  stockRecord(naturalKey: string): VersionedRecord<StockRecord> | undefined {
    return this.records.get(naturalKey);
  }

  itemStock(itemId: string): VersionedRecord<ItemStock> | undefined {
    return this.totals.get(itemId);
  }

  document(key: string): VersionedRecord<StockDocument> | undefined {
    return this.documents.get(key);
  }

  /** Stored stock of `item` at a place; the item's stored total grows by it. */
  stock(item: Item, side: StockSide, onHand: number): StockRecord {
    const record: StockRecord = { id: `stk_${item.sku}_${side.location.code}_${side.lot ?? ''}`, itemId: item.id, sku: item.sku, locationId: side.location.id, locationCode: side.location.code, lot: side.lot, onHand, createdAt: STORED_AT, updatedAt: STORED_AT };
    this.records.set(stockRecordKey(item.id, side.location.id, side.lot), { record, version: 1 });
    const total = this.totals.get(item.id)?.record.onHand ?? 0;
    this.totals.set(item.id, { record: { itemId: item.id, onHand: total + onHand }, version: 1 });
    return record;
  }

  context(rowNumber = 1): DecideContext {
    return {
      now: NOW,
      newId: () => {
        throw new Error('stock kinds name their claims by natural key');
      },
      rowNumber,
      resolve: (entity, key) => this.references[entity].get(key),
      stock: { ledger: this.ledger, jobId: JOB, item: (id) => [WIDGET, RESIN, GADGET].find((item) => item.id === id) },
    };
  }

  onHand(item: Item, side: StockSide): number {
    return this.ledger.onHand(item, side);
  }
}

function parsed<Row>(kind: ImportKindDefinition<Row, unknown>, raw: RawRow, rowNumber = 1): Row {
  const result = kind.parseRow(raw, rowNumber);
  if (!result.ok) throw new Error(`expected a valid row: ${JSON.stringify(result.errors)}`);
  return result.value;
}

function unitOf<Row>(kind: ImportKindDefinition<Row, unknown>, raws: RawRow[], firstRow = 1): ImportUnit<Row> {
  return { rowNumbers: raws.map((_, index) => firstRow + index), rows: raws.map((raw, index) => parsed(kind, raw, firstRow + index)) };
}

/** Decides a unit as the pipeline does: inside a ledger unit, rolled back when it failed. */
function decide<Row>(
  kind: ImportKindDefinition<Row, unknown>,
  world: World,
  raws: RawRow[],
  options: { existing?: VersionedRecord<StockEntry>; strategy?: DuplicateStrategy; rowNumber?: number } = {},
): { decision: UnitDecision; writes: RecordWrite[]; events: EventDraft[] } {
  const rowNumber = options.rowNumber ?? 1;
  world.ledger.begin();
  const decision = kind.decideUnit(unitOf(kind, raws, rowNumber), options.existing, options.strategy ?? 'fail', world.context(rowNumber));
  if (decision.action === 'failed') {
    world.ledger.rollback();
    return { decision, writes: [], events: [] };
  }
  const unit = world.ledger.endUnit();
  return { decision, ...unit };
}

const typesOf = (events: readonly EventDraft[]) => events.map((event) => event.type);
const claimOf = (decision: UnitDecision): StockEntry | undefined =>
  decision.action === 'created' ? decision.writes.flatMap((write) => (write.op === 'claim-entry' ? [write.entry] : []))[0] : undefined;

/** Cells by lower-cased header name; a table of cases may leave some undefined (kept as the default). */
type Cells = Partial<Record<string, string>>;

function rowOf(defaults: Record<string, string>, cells: Cells): RawRow {
  const row: Record<string, string> = { ...defaults };
  for (const [column, cell] of Object.entries(cells)) if (cell !== undefined) row[column] = cell;
  return row;
}

const adjustment = (cells: Cells = {}) => rowOf({ reference: 'ADJ-1', sku: 'WIDGET', locationcode: 'A1', quantitydelta: '-3', lot: '', reason: 'damaged' }, cells);
const transfer = (cells: Cells = {}) => rowOf({ reference: 'T-1', sku: 'WIDGET', fromlocationcode: 'A1', tolocationcode: 'B1', quantity: '4', lot: '' }, cells);
const count = (cells: Cells = {}) => rowOf({ countreference: 'CNT-1', locationcode: 'A1', sku: 'WIDGET', countedquantity: '8', lot: '' }, cells);
const receipt = (cells: Cells = {}) => rowOf({ ponumber: 'PO-1', sku: 'WIDGET', locationcode: 'A1', quantity: '10', lot: '', receivedat: '' }, cells);
const build = (cells: Cells = {}) =>
  rowOf({ buildreference: 'B-1', bomcode: 'GADGET-BOM', quantity: '4', locationcode: 'A1', outputlot: '', componentsku: '', sourcelot: '', sourcelocationcode: '' }, cells);

/** Parses a row expected to be invalid and gives its errors' column and code. */
function problems<Row>(kind: ImportKindDefinition<Row, unknown>, raw: RawRow): Array<{ column: string | null; code: string }> {
  const result = kind.parseRow(raw, 7);
  if (result.ok) return [];
  expect(result.errors.every((error) => error.rowNumber === 7)).toBe(true);
  return result.errors.map(({ column, code }) => ({ column, code }));
}

const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();

describe('stock kinds: parseRow', () => {
  it('stock-adjustments reads a row; an absent optional column is null', () => {
    // Act
    const full = stockAdjustmentsKind.parseRow(adjustment({ lot: 'L-1', quantitydelta: '-0.000001' }), 1);
    const bare = stockAdjustmentsKind.parseRow({ reference: 'ADJ-1', sku: 'WIDGET', locationcode: 'A1', quantitydelta: '2.5' }, 2);

    // Assess
    expect(full).toEqual({ ok: true, value: { reference: 'ADJ-1', sku: 'WIDGET', locationCode: 'A1', quantityDelta: -0.000001, quantityDeltaCell: '-0.000001', lot: 'L-1', reason: 'damaged' } });
    expect(bare).toEqual({ ok: true, value: { reference: 'ADJ-1', sku: 'WIDGET', locationCode: 'A1', quantityDelta: 2.5, quantityDeltaCell: '2.5', lot: null, reason: null } });
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
    expect(dated).toEqual({ ok: true, value: { poNumber: 'PO-1', sku: 'WIDGET', locationCode: 'A1', quantity: 10, quantityCell: '10', lot: 'L-1', receivedAt: '2026-11-20T06:15:00.000Z' } });
    expect(undated).toEqual({ ok: true, value: { poNumber: 'PO-1', sku: 'WIDGET', locationCode: 'A1', quantity: 10, quantityCell: '10', lot: null, receivedAt: null } });
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
    { label: 'a receivedAt on a day that does not exist (February 30)', cells: { receivedat: '2026-02-30T08:15:00Z' }, column: 'receivedAt', code: 'invalid-value' },
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
      value: { buildReference: 'B-1', bomCode: 'GADGET-BOM', quantity: 4, locationCode: 'A1', outputLot: null, componentSku: null, sourceLot: null, sourceLocationCode: null },
    });
    expect(source).toEqual({
      ok: true,
      value: { buildReference: 'B-1', bomCode: 'GADGET-BOM', quantity: 4, locationCode: 'A1', outputLot: null, componentSku: 'RESIN', sourceLot: 'L1', sourceLocationCode: 'B1' },
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
    { kind: 'stock-adjustments', column: 'reference', run: (world: World, strategy: DuplicateStrategy) => decide(stockAdjustmentsKind, world, [adjustment()], { existing: claim, strategy, rowNumber: 4 }) },
    { kind: 'stock-transfers', column: 'reference', run: (world: World, strategy: DuplicateStrategy) => decide(stockTransfersKind, world, [transfer()], { existing: claim, strategy, rowNumber: 4 }) },
    { kind: 'stock-counts', column: 'countReference', run: (world: World, strategy: DuplicateStrategy) => decide(stockCountsKind, world, [count()], { existing: claim, strategy, rowNumber: 4 }) },
    { kind: 'po-receipts', column: 'poNumber', run: (world: World, strategy: DuplicateStrategy) => decide(poReceiptsKind, world, [receipt()], { existing: claim, strategy, rowNumber: 4 }) },
    { kind: 'builds', column: 'buildReference', run: (world: World, strategy: DuplicateStrategy) => decide(buildsKind, world, [build()], { existing: claim, strategy, rowNumber: 4 }) },
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

describe('stock kinds: lots', () => {
  const cases = [
    { kind: 'stock-adjustments', required: () => decide(stockAdjustmentsKind, new World(), [adjustment({ sku: 'RESIN', quantitydelta: '1' })]), refused: () => decide(stockAdjustmentsKind, new World(), [adjustment({ quantitydelta: '1', lot: 'L1' })]) },
    { kind: 'stock-transfers', required: () => decide(stockTransfersKind, new World(), [transfer({ sku: 'RESIN' })]), refused: () => decide(stockTransfersKind, new World(), [transfer({ lot: 'L1' })]) },
    { kind: 'stock-counts', required: () => decide(stockCountsKind, new World(), [count({ sku: 'RESIN' })]), refused: () => decide(stockCountsKind, new World(), [count({ lot: 'L1' })]) },
    { kind: 'po-receipts', required: () => decide(poReceiptsKind, new World(), [receipt({ sku: 'RESIN' })]), refused: () => decide(poReceiptsKind, new World(), [receipt({ lot: 'L1' })]) },
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
      writes: [{ op: 'claim-entry', entry: { key: stockAdjustmentsKind.naturalKeyOf(parsed(stockAdjustmentsKind, adjustment())), jobId: JOB, movementIds: ['mov_1'], appliedAt: NOW } }],
      events: [],
    });
    expect(world.onHand(WIDGET, at(A1))).toBe(4.5);
    expect(writes).toEqual([
      { op: 'record-movement', movement: expect.objectContaining({ id: 'mov_1', quantity: 2.5, type: 'adjustment', reference: 'ADJ-1', toLocationId: A1.id }) },
      { op: 'append-movement', movement: expect.objectContaining({ id: 'mov_1', quantity: 2.5, type: 'adjustment', reference: 'ADJ-1' }) },
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
      error: { rowNumber: 3, column: 'quantityDelta', value: '-6', code: 'insufficient-stock', message: expect.stringMatching(/has 5 on hand; 6 would take it below zero/) },
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
    expect(writes.map((write) => (write.op === 'append-movement' ? [write.movement.stockRecordId, write.movement.quantity] : write.op))).toEqual([
      'record-movement',
      [source.id, -4],
      [world.ledger.recordAt(WIDGET, at(B1)).id, 4],
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
    expect(lower.writes).toEqual([{ op: 'record-movement', movement: expect.objectContaining({ quantity: 4, type: 'count', fromLocationId: A1.id }) }, { op: 'append-movement', movement: expect.objectContaining({ quantity: -4, type: 'count', reference: 'CNT-1' }) }]);
    expect(typesOf(lower.events)).toEqual(['movement.created', 'stock.changed']);
    expect(same.writes).toEqual([]);
    expect(same.events).toEqual([]);
    expect(claimOf(same.decision)?.movementIds).toEqual([]);
    expect(higher.writes).toEqual([{ op: 'record-movement', movement: expect.objectContaining({ quantity: 0.75, type: 'count', toLocationId: A1.id }) }, { op: 'append-movement', movement: expect.objectContaining({ quantity: 0.75, type: 'count' }) }]);
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
        data: { countId: expect.stringMatching(/^cnt_/), countReference: 'CNT-1', locationId: A1.id, lines: [{ itemId: WIDGET.id, sku: 'WIDGET', lot: null, expected: 12, counted: 12, delta: 0 }] },
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
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 2, column: 'locationCode', value: 'B1', code: 'invalid-value' }) });
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
    expect(claimOf(first.decision)).toEqual({ key: poReceiptsKind.naturalKeyOf(parsed(poReceiptsKind, receipt())), jobId: JOB, movementIds: ['mov_1'], appliedAt: NOW });
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
      locationId: A1.id,
      consumed: [
        { sourceStockRecordId: 'stk_WIDGET_A1_', itemId: WIDGET.id, quantity: 6, lot: null },
        { sourceStockRecordId: 'stk_RESIN_A1_L1', itemId: RESIN.id, quantity: 1.5, lot: 'L1' },
        { sourceStockRecordId: 'stk_RESIN_B1_L2', itemId: RESIN.id, quantity: 0.7, lot: 'L2' },
      ],
      builtAt: NOW,
    });
    expect(claimOf(decision)).toEqual({ key: buildsKind.naturalKeyOf(parsed(buildsKind, build())), jobId: JOB, movementIds: ['mov_1', 'mov_2', 'mov_3', 'mov_4'], buildId: provenance?.id, appliedAt: NOW });
    expect(writes.map((write) => (write.op === 'append-movement' ? [write.movement.type, write.movement.quantity] : write.op))).toEqual([
      'record-movement',
      ['consumption', -6],
      'record-movement',
      ['consumption', -1.5],
      'record-movement',
      ['consumption', -0.7],
      'record-movement',
      ['production', 4],
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
    const { decision } = decide(buildsKind, world, resinSources.map((raw) => ({ ...raw, quantity: '2' })));

    // Assess
    expect(decision.action).toBe('created');
    expect(world.onHand(RESIN, at(A1, 'L1'))).toBe(0.4);
    expect(world.onHand(RESIN, at(B1, 'L2'))).toBe(5);
    expect(world.onHand(WIDGET, at(A1))).toBe(7);
  });

  it('rounds what a line needs to 6 decimals', () => {
    // Prepare: 1 GADGET needs 0.333333 × 1 / 1 × 1.125 = 0.374999625 → 0.375 WIDGET
    const bom = bomOf({ outputQuantity: 1, lines: [{ lineId: 'bln_widget', itemId: WIDGET.id, quantity: 0.333333, unit: null, scrapPercent: 12.5, notes: null }] });
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
    expect(writes[1]).toEqual({ op: 'append-movement', movement: expect.objectContaining({ type: 'consumption', quantity: -0.000158 }) });
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
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 1, column: 'bomCode', value: 'GADGET-BOM', code: 'invalid-value' }) });
    expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
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
      error: expect.objectContaining({ rowNumber: 8, column: 'quantity', code: 'insufficient-stock', message: expect.stringMatching(/RESIN.* has 2 on hand; 3\.3 would take it below zero/) }),
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
    const { decision } = decide(buildsKind, world, resinSources.map((raw) => ({ ...raw, quantity: '8' })));

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ code: 'insufficient-stock' }) });
    expect(world.onHand(WIDGET, at(A1))).toBe(10);
  });

  it('requires source lines for a component tracked by lot (lot-required)', () => {
    // Prepare
    const world = stockedWorld();

    // Act
    const { decision } = decide(buildsKind, world, [build()]);

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ column: 'componentSku', value: 'RESIN', code: 'lot-required' }) });
  });

  it('refuses a sourceLot for a component not tracked by lot, and an outputLot for a target not tracked by lot', () => {
    // Prepare
    const world = stockedWorld();

    // Act
    const source = decide(buildsKind, world, [...resinSources, build({ componentsku: 'WIDGET', sourcelot: 'L9' })]);
    const output = decide(buildsKind, world, resinSources.map((raw) => ({ ...raw, outputlot: 'OUT-1' })));

    // Assess
    expect(source.decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 3, column: 'sourceLot', value: 'L9', code: 'lot-not-allowed' }) });
    expect(output.decision).toEqual({ action: 'failed', error: expect.objectContaining({ column: 'outputLot', value: 'OUT-1', code: 'lot-not-allowed' }) });
    expect(world.ledger.flush().filter((write) => write.op !== 'check-stock-record')).toEqual([]);
  });

  it('refuses a componentSku that is not a component of the BOM with invalid-value', () => {
    // Prepare
    const world = stockedWorld();

    // Act
    const { decision } = decide(buildsKind, world, [...resinSources, build({ componentsku: 'GADGET' })]);

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 3, column: 'componentSku', value: 'GADGET', code: 'invalid-value' }) });
  });

  it('refuses rows of one build that disagree on its quantity with invalid-value', () => {
    // Prepare
    const world = stockedWorld();

    // Act
    const { decision } = decide(buildsKind, world, [build({ componentsku: 'RESIN', sourcelot: 'L1' }), build({ componentsku: 'RESIN', sourcelot: 'L2', sourcelocationcode: 'B1', quantity: '5' })]);

    // Assess
    expect(decision).toEqual({ action: 'failed', error: expect.objectContaining({ rowNumber: 2, column: 'quantity', code: 'invalid-value' }) });
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

  it('keeps a receipt within its byte budget however long its lines are (multi-byte lots)', () => {
    // Prepare: lines of about 600 bytes each
    let receipt = newReceipt('imp_1', 'PO-1', '2026-11-22T10:00:00.000Z');
    const line = (index: number) => ({ itemId: 'itm_1', sku: 'S'.repeat(64), locationId: 'loc_1', quantity: 1, lot: `${'🦀'.repeat(60)}${index}`, stockRecordId: `stk_${index}` });

    // Act
    let index = 0;
    while (hasRoomFor(receipt, line(index))) receipt = withReceiptLine(receipt, line(index++));

    // Assess: stopped by bytes before the line count, and the whole receipt fits a stored item
    expect(receipt.lines.length).toBeLessThan(MAX_DOCUMENT_LINES);
    expect(receipt.linesBytes).toBeLessThanOrEqual(MAX_DOCUMENT_LINE_BYTES);
    expect(Buffer.byteLength(JSON.stringify(receipt))).toBeLessThan(400 * 1024);
  });
});
