import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../../lib/platform/events/types.ts';
import type { Item } from '../../../lib/inventory/domain/item.ts';
import type { Location } from '../../../lib/inventory/domain/location.ts';
import type { VersionedRecord } from '../../../lib/inventory/domain/records.ts';
import { stockRecordKey, type StockRecord } from '../../../lib/inventory/domain/stock.ts';
import { newCount, newReceipt, withCountLine, withReceiptLine } from '../../../lib/stock/domain/documents.ts';
import { StockLedger, type LedgerIds, type MoveInput, type StockBase, type StockSide } from '../../../lib/stock/domain/ledger.ts';
import { MAX_ON_HAND, type ItemStock, type StockDocument } from '../../../lib/stock/domain/records.ts';

/**
 * The chunk-scoped stock working set (docs/inventory.md "The stock model", "Events"), over an
 * in-memory stored state. The pipeline that drives it runs in test/unit/imports and test/e2e.
 */

const NOW = '2026-11-22T10:00:00.000Z';
const LATER = '2026-11-22T11:00:00.000Z';
const STORED_AT = '2026-11-01T08:00:00.000Z';

function itemOf(overrides: Partial<Item> = {}): Item {
  return {
    id: 'itm_widget',
    sku: 'WIDGET',
    name: 'Widget',
    unit: 'ea',
    description: null,
    category: null,
    barcode: null,
    reorderPoint: null,
    trackingMode: 'none',
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
    ...overrides,
  };
}

function locationOf(id: string, code: string): Location {
  return { id, code, name: code, type: 'bin', parentCode: null, createdAt: STORED_AT, updatedAt: STORED_AT };
}

const A1 = locationOf('loc_a1', 'A1');
const B1 = locationOf('loc_b1', 'B1');
const at = (location: Location, lot: string | null = null): StockSide => ({ location, lot });

/** Stored stock, by natural key, as a StockBase reads it. */
class MemoryBase implements StockBase {
  readonly records = new Map<string, VersionedRecord<StockRecord>>();
  readonly totals = new Map<string, VersionedRecord<ItemStock>>();
  readonly documents = new Map<string, VersionedRecord<StockDocument>>();

  stockRecord(naturalKey: string): VersionedRecord<StockRecord> | undefined {
    return this.records.get(naturalKey);
  }

  itemStock(itemId: string): VersionedRecord<ItemStock> | undefined {
    return this.totals.get(itemId);
  }

  document(key: string): VersionedRecord<StockDocument> | undefined {
    return this.documents.get(key);
  }

  lotsAt(): readonly string[] {
    return [];
  }

  /** A stored stock record at `version`; the item's stored total is set to `total` at `totalVersion`. */
  put(item: Item, side: StockSide, onHand: number, version: number, total: { onHand: number; version: number } = { onHand, version: 1 }): StockRecord {
    const id = `stk_${item.sku}_${side.location.code}_${side.lot ?? ''}`;
    const record: StockRecord = {
      id,
      itemId: item.id,
      sku: item.sku,
      locationId: side.location.id,
      locationCode: side.location.code,
      lot: side.lot,
      onHand,
      createdAt: STORED_AT,
      updatedAt: STORED_AT,
    };
    this.records.set(stockRecordKey(item.id, side.location.id, side.lot), { record, version });
    this.totals.set(item.id, { record: { itemId: item.id, onHand: total.onHand }, version: total.version });
    return record;
  }
}

function sequentialIds(): LedgerIds {
  let records = 0;
  let movements = 0;
  return { stockRecord: () => `stk_new${(records += 1)}`, movement: () => `mov_${(movements += 1)}` };
}

function ledgerOver(base: MemoryBase = new MemoryBase()): StockLedger {
  return new StockLedger(base, sequentialIds());
}

function receive(item: Item, side: StockSide, quantity: number, occurredAt = NOW): MoveInput {
  return { type: 'receipt', item, quantity, to: side, reference: 'PO-1', occurredAt };
}

function take(item: Item, side: StockSide, quantity: number, occurredAt = NOW): MoveInput {
  return { type: 'adjustment', item, quantity, from: side, reference: 'ADJ-1', reason: 'damaged', occurredAt };
}

const typesOf = (events: readonly EventDraft[]) => events.map((event) => event.type);

describe('StockLedger: moves', () => {
  it('creates a new record for a receipt into an empty place: a create write, three actions for the record (record, two list entries, the by-item one claiming its key) and one for the item total', () => {
    // Prepare
    const item = itemOf();
    const ledger = ledgerOver();
    ledger.begin();

    // Act
    const moved = ledger.move(receive(item, at(A1), 10));

    // Assess
    const record: StockRecord = {
      id: 'stk_new1',
      itemId: item.id,
      sku: item.sku,
      locationId: A1.id,
      locationCode: A1.code,
      lot: null,
      onHand: 10,
      createdAt: NOW,
      updatedAt: NOW,
    };
    expect(moved).toEqual({ ok: true, movementId: 'mov_1', to: record });
    expect(ledger.onHand(item, at(A1))).toBe(10);
    expect(ledger.pendingActions()).toBe(4);
    expect(ledger.flush()).toEqual([
      { op: 'create', entity: 'stock-record', record },
      { op: 'put-item-stock', itemStock: { itemId: item.id, onHand: 10, trackingMode: 'none' }, expectedVersion: null, trackingModeRead: 'none' },
    ]);
    expect(ledger.peekUnit().writes).toEqual([
      {
        op: 'record-movement',
        movement: {
          id: 'mov_1',
          type: 'receipt',
          itemId: item.id,
          sku: item.sku,
          fromLocationId: null,
          toLocationId: A1.id,
          quantity: 10,
          lot: null,
          reference: 'PO-1',
          occurredAt: NOW,
        },
        legs: [{ stockRecordId: 'stk_new1', quantity: 10 }],
      },
    ]);
  });

  it('makes each movement id from its occurredAt, and refuses a time a movement id cannot carry', () => {
    // Prepare
    const item = itemOf();
    const times: string[] = [];
    const ledger = new StockLedger(new MemoryBase(), {
      stockRecord: () => 'stk_new1',
      movement: (occurredAt) => (times.push(occurredAt), `mov_${times.length}`),
    });
    ledger.begin();

    // Act
    ledger.move(receive(item, at(A1), 1, LATER));
    const early = () => ledger.move(receive(item, at(A1), 1, '1969-12-31T23:59:59.999Z'));
    const unnormalised = () => ledger.move(receive(item, at(A1), 1, '2026-11-22T12:00:00+01:00'));

    // Assess
    expect(times).toEqual([LATER]);
    expect(early).toThrow(/from 1970 on/);
    expect(unnormalised).toThrow(/ISO 8601 UTC time in milliseconds/);
  });

  it('counts one action for a stored record (its update alone: its list entries never change) and three for a new one', () => {
    // Prepare
    const item = itemOf();
    const base = new MemoryBase();
    base.put(item, at(A1), 5, 3);
    const ledger = ledgerOver(base);

    // Act
    ledger.move(receive(item, at(A1), 1));
    const storedOnly = ledger.pendingActions();
    ledger.move(receive(item, at(B1), 1));

    // Assess: the record (1) + item total (1), then + the new record and its two list entries, the by-item one claiming its key (3)
    expect(storedOnly).toBe(2);
    expect(ledger.pendingActions()).toBe(5);
  });

  it('gives the same id to every look at an empty place before and after its first movement', () => {
    // Prepare
    const item = itemOf();
    const ledger = ledgerOver();

    // Act
    const before = ledger.recordAt(item, at(A1));
    const moved = ledger.move(receive(item, at(A1), 2));

    // Assess
    expect(before).toMatchObject({ id: 'stk_new1', onHand: 0 });
    expect(moved.ok && moved.to?.id).toBe('stk_new1');
    expect(ledger.recordAt(item, at(A1)).id).toBe('stk_new1');
    expect(ledger.pendingActions()).toBe(4);
  });

  it('coalesces several moves of one stored record, across units, into ONE update at the version it was read at', () => {
    // Prepare
    const item = itemOf();
    const base = new MemoryBase();
    const stored = base.put(item, at(A1), 10, 4, { onHand: 10, version: 7 });
    const ledger = ledgerOver(base);

    // Act
    ledger.begin();
    ledger.move(take(item, at(A1), 3));
    const first = ledger.endUnit();
    ledger.begin();
    ledger.move(receive(item, at(A1), 5, LATER));
    const second = ledger.endUnit();

    // Assess
    expect(ledger.flush()).toEqual([
      { op: 'update', entity: 'stock-record', record: { ...stored, onHand: 12, updatedAt: LATER }, expectedVersion: 4, previousOnHand: 10 },
      { op: 'put-item-stock', itemStock: { itemId: item.id, onHand: 12, trackingMode: 'none' }, expectedVersion: 7, trackingModeRead: 'none' },
    ]);
    expect(ledger.pendingActions()).toBe(2);
    // …while each unit keeps its own movement: ONE write with its leg
    expect(first.writes).toEqual([
      {
        op: 'record-movement',
        movement: expect.objectContaining({ id: 'mov_1', quantity: 3, type: 'adjustment' }),
        legs: [{ stockRecordId: stored.id, quantity: -3 }],
      },
    ]);
    expect(second.writes).toEqual([
      {
        op: 'record-movement',
        movement: expect.objectContaining({ id: 'mov_2', quantity: 5, type: 'receipt' }),
        legs: [{ stockRecordId: stored.id, quantity: 5 }],
      },
    ]);
  });

  it('gives each stock.changed the record’s updatedAt before it: the stored one, then the previous move’s time within a chunk', () => {
    // Prepare
    const item = itemOf();
    const base = new MemoryBase();
    base.put(item, at(A1), 10, 4);
    const ledger = ledgerOver(base);

    // Act
    ledger.begin();
    ledger.move(take(item, at(A1), 3));
    const first = ledger.endUnit();
    ledger.begin();
    ledger.move(receive(item, at(A1), 5, LATER));
    const second = ledger.endUnit();

    // Assess: the before-image exact export snapshots roll back to (docs/exports.md "Snapshots")
    expect(first.events.find((event) => event.type === 'stock.changed')?.data).toMatchObject({ previousQuantity: 10, previousUpdatedAt: STORED_AT });
    expect(second.events.find((event) => event.type === 'stock.changed')?.data).toMatchObject({ previousQuantity: 7, previousUpdatedAt: NOW });
  });

  it('transfers with movement.created, then stock.changed for the source and the destination, two opposite ledger entries, no low-stock and no item total', () => {
    // Prepare: the source falls below the reorder point, the item's total does not
    const item = itemOf({ reorderPoint: 45 });
    const base = new MemoryBase();
    const source = base.put(item, at(A1), 50, 2);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    const moved = ledger.move({ type: 'transfer', item, quantity: 10, from: at(A1), to: at(B1), reference: 'T-1', occurredAt: NOW });

    // Assess
    expect(moved).toMatchObject({ ok: true, movementId: 'mov_1', from: { id: source.id, onHand: 40 }, to: { id: 'stk_new1', onHand: 10 } });
    const { writes, events } = ledger.peekUnit();
    expect(typesOf(events)).toEqual(['movement.created', 'stock.changed', 'stock.changed']);
    expect(events[0]?.data).toEqual({
      movement: {
        id: 'mov_1',
        type: 'transfer',
        itemId: item.id,
        sku: 'WIDGET',
        fromLocationId: A1.id,
        toLocationId: B1.id,
        quantity: 10,
        lot: null,
        reference: 'T-1',
      },
    });
    expect(events[1]?.data).toEqual({
      stockRecordId: source.id,
      itemId: item.id,
      sku: 'WIDGET',
      locationId: A1.id,
      locationCode: 'A1',
      lot: null,
      previousQuantity: 50,
      previousUpdatedAt: STORED_AT,
      quantity: 40,
      delta: -10,
      previousReserved: 0,
      reserved: 0,
      previousAvailable: 50,
      available: 40,
      movementId: 'mov_1',
      reservationId: null,
      reason: null,
    });
    // The destination record is created by this movement: no updatedAt before it.
    expect(events[2]?.data).toMatchObject({
      stockRecordId: 'stk_new1',
      locationId: B1.id,
      locationCode: 'B1',
      previousQuantity: 0,
      previousUpdatedAt: null,
      quantity: 10,
      delta: 10,
      movementId: 'mov_1',
    });
    // ONE write: the movement with its two legs, source first
    expect(writes).toEqual([
      {
        op: 'record-movement',
        movement: {
          id: 'mov_1',
          type: 'transfer',
          itemId: item.id,
          sku: 'WIDGET',
          fromLocationId: A1.id,
          toLocationId: B1.id,
          quantity: 10,
          lot: null,
          reference: 'T-1',
          occurredAt: NOW,
        },
        legs: [
          { stockRecordId: source.id, quantity: -10 },
          { stockRecordId: 'stk_new1', quantity: 10 },
        ],
      },
    ]);
    // The item's total does not change: neither written nor checked (docs/inventory.md "Concurrency")
    expect(ledger.flush().map((write) => write.op)).toEqual(['update', 'create']);
    expect(ledger.pendingActions()).toBe(1 + 3);
  });

  it('never reads the item total for a transfer, and still keeps the destination within MAX_ON_HAND', () => {
    // Prepare: the stored records are read, the item's total is not (a StockBase that has not read it notes a miss)
    const item = itemOf({ reorderPoint: 45 });
    const base = new MemoryBase();
    base.put(item, at(A1), 50, 2);
    base.put(item, at(B1), MAX_ON_HAND - 12, 3);
    base.totals.clear();
    const asked: string[] = [];
    const ledger = new StockLedger(
      {
        stockRecord: (key) => base.stockRecord(key),
        itemStock: (itemId) => (asked.push(itemId), base.itemStock(itemId)),
        document: () => undefined,
        lotsAt: () => [],
      },
      sequentialIds(),
    );
    ledger.begin();

    // Act
    const moved = ledger.move({ type: 'transfer', item, quantity: 10, from: at(A1), to: at(B1), reference: 'T-1', occurredAt: NOW });
    const overLimit = ledger.move({ type: 'transfer', item, quantity: 3, from: at(A1), to: at(B1), reference: 'T-2', occurredAt: NOW });

    // Assess
    expect(moved).toMatchObject({ ok: true, from: { onHand: 40 }, to: { onHand: MAX_ON_HAND - 2 } });
    expect(overLimit).toEqual({ ok: false, reason: 'over-limit', limit: MAX_ON_HAND });
    expect(asked).toEqual([]);
    expect(ledger.flush().some((write) => write.op === 'put-item-stock' || write.op === 'check-item-stock')).toBe(false);
  });

  it('carries the adjustment reason and the lot on its events', () => {
    // Prepare
    const resin = itemOf({ id: 'itm_resin', sku: 'RESIN', trackingMode: 'lot' });
    const base = new MemoryBase();
    base.put(resin, at(A1, 'L1'), 4, 1);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    ledger.move(take(resin, at(A1, 'L1'), 1.5));

    // Assess
    const [created, changed] = ledger.peekUnit().events;
    expect(created?.data).toMatchObject({ movement: { lot: 'L1', fromLocationId: A1.id, toLocationId: null, quantity: 1.5 } });
    expect(changed).toMatchObject({
      type: 'stock.changed',
      occurredAt: NOW,
      data: { lot: 'L1', reason: 'damaged', previousQuantity: 4, quantity: 2.5, delta: -1.5 },
    });
  });

  it('refuses to take more than is on hand with what is available, and changes nothing', () => {
    // Prepare
    const item = itemOf({ reorderPoint: 10 });
    const base = new MemoryBase();
    base.put(item, at(A1), 5, 1);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    const tooMuch = ledger.move(take(item, at(A1), 5.000001));
    const fromNothing = ledger.move({ type: 'transfer', item, quantity: 1, from: at(B1), to: at(A1), reference: 'T-1', occurredAt: NOW });

    // Assess
    expect(tooMuch).toEqual({ ok: false, reason: 'insufficient-stock', available: 5 });
    expect(fromNothing).toEqual({ ok: false, reason: 'insufficient-stock', available: 0 });
    expect(ledger.onHand(item, at(A1))).toBe(5);
    expect(ledger.peekUnit()).toEqual({ writes: [], events: [] });
    // The refusals rest on what was read: both records are checked, unchanged, at commit
    expect(ledger.pendingActions()).toBe(2);
    expect(ledger.flush().map((write) => [write.op, 'expectedVersion' in write ? write.expectedVersion : undefined])).toEqual([
      ['check-stock-record', 1],
      ['check-stock-record', null],
    ]);
  });

  it('refuses to take a record or an item above MAX_ON_HAND', () => {
    // Prepare
    const item = itemOf();
    const base = new MemoryBase();
    base.put(item, at(A1), MAX_ON_HAND - 1, 1);
    const ledger = ledgerOver(base);

    // Act
    const over = ledger.move(receive(item, at(A1), 2));
    const elsewhere = ledger.move(receive(item, at(B1), 2));
    const upTo = ledger.move(receive(item, at(A1), 1));

    // Assess
    expect(over).toEqual({ ok: false, reason: 'over-limit', limit: MAX_ON_HAND });
    expect(elsewhere).toEqual({ ok: false, reason: 'over-limit', limit: MAX_ON_HAND });
    expect(upTo).toMatchObject({ ok: true, to: { onHand: MAX_ON_HAND } });
  });

  it('takes exactly what is on hand, down to zero', () => {
    // Prepare
    const item = itemOf();
    const base = new MemoryBase();
    base.put(item, at(A1), 5, 1);
    const ledger = ledgerOver(base);

    // Act
    const moved = ledger.move(take(item, at(A1), 5));

    // Assess
    expect(moved).toMatchObject({ ok: true, from: { onHand: 0 } });
    expect(ledger.onHand(item, at(A1))).toBe(0);
  });

  it('refuses a movement of a quantity that is not positive', () => {
    // Prepare
    const item = itemOf();
    const ledger = ledgerOver();

    // Act / Assess
    expect(() => ledger.move(receive(item, at(A1), 0))).toThrow(/positive quantity/);
    expect(() => ledger.move(receive(item, at(A1), -1))).toThrow(/positive quantity/);
    expect(ledger.pendingActions()).toBe(0);
  });

  it('keeps quantities exact: 0.1 + 0.2 on hand is 0.3, and all of it can be taken', () => {
    // Prepare
    const item = itemOf();
    const ledger = ledgerOver();

    // Act
    ledger.move(receive(item, at(A1), 0.1));
    ledger.move(receive(item, at(A1), 0.2));
    const onHand = ledger.onHand(item, at(A1));
    const taken = ledger.move(take(item, at(A1), 0.3));

    // Assess
    expect(onHand).toBe(0.3);
    expect(taken).toMatchObject({ ok: true, from: { onHand: 0 } });
    expect(ledger.flush()).toContainEqual({
      op: 'put-item-stock',
      itemStock: { itemId: item.id, onHand: 0, trackingMode: 'none' },
      expectedVersion: null,
      trackingModeRead: 'none',
    });
  });
});

describe('StockLedger: low-stock', () => {
  function lowStockAfterEach(item: Item, ledger: StockLedger, moves: MoveInput[]): boolean[] {
    return moves.map((input) => {
      ledger.begin();
      const moved = ledger.move(input);
      if (!moved.ok) throw new Error(`unexpected refusal: ${JSON.stringify(moved)}`);
      return ledger.endUnit().events.some((event) => event.type === 'low-stock');
    });
  }

  it('is emitted only when the total crosses from at least the reorder point to below it, again after coming back above', () => {
    // Prepare: 12 on hand, reorder point 10
    const item = itemOf({ reorderPoint: 10 });
    const base = new MemoryBase();
    base.put(item, at(A1), 12, 1);
    const ledger = ledgerOver(base);

    // Act: 12 → 10 (at the point) → 9 (crosses) → 8 (already below) → 13 (above) → 9 (crosses again)
    const emitted = lowStockAfterEach(item, ledger, [
      take(item, at(A1), 2),
      take(item, at(A1), 1),
      take(item, at(A1), 1),
      receive(item, at(A1), 5),
      take(item, at(A1), 4),
    ]);

    // Assess
    expect(emitted).toEqual([false, true, false, false, true]);
  });

  it('names the item, its total and its reorder point, after the stock.changed of the movement', () => {
    // Prepare
    const item = itemOf({ reorderPoint: 10 });
    const base = new MemoryBase();
    base.put(item, at(A1), 10, 1);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    ledger.move(take(item, at(A1), 0.5));

    // Assess
    const { events } = ledger.peekUnit();
    expect(typesOf(events)).toEqual(['movement.created', 'stock.changed', 'low-stock']);
    expect(events[2]).toEqual({
      type: 'low-stock',
      occurredAt: NOW,
      data: { itemId: item.id, sku: 'WIDGET', onHand: 9.5, reserved: 0, available: 9.5, reorderPoint: 10 },
    });
  });

  it("is decided on the item's total across locations, not on the location's stock", () => {
    // Prepare: 5 at A1 and 20 at B1, reorder point 10
    const item = itemOf({ reorderPoint: 10 });
    const base = new MemoryBase();
    base.put(item, at(A1), 5, 1, { onHand: 25, version: 3 });
    base.put(item, at(B1), 20, 1, { onHand: 25, version: 3 });
    const ledger = ledgerOver(base);

    // Act: A1 goes to 0 (total 20), then B1 to 9 (total 9)
    const emitted = lowStockAfterEach(item, ledger, [take(item, at(A1), 5), take(item, at(B1), 11)]);

    // Assess
    expect(emitted).toEqual([false, true]);
    expect(ledger.flush()).toContainEqual({
      op: 'put-item-stock',
      itemStock: { itemId: item.id, onHand: 9, trackingMode: 'none' },
      expectedVersion: 3,
      trackingModeRead: 'none',
    });
  });

  it('is not emitted when the total was already below the reorder point', () => {
    // Prepare
    const item = itemOf({ reorderPoint: 10 });
    const base = new MemoryBase();
    base.put(item, at(A1), 3, 1);
    const ledger = ledgerOver(base);

    // Act
    const emitted = lowStockAfterEach(item, ledger, [take(item, at(A1), 1), take(item, at(A1), 2)]);

    // Assess
    expect(emitted).toEqual([false, false]);
    expect(ledger.onHand(item, at(A1))).toBe(0);
  });

  it('is never emitted for an item without a reorder point', () => {
    // Prepare
    const item = itemOf({ reorderPoint: null });
    const base = new MemoryBase();
    base.put(item, at(A1), 3, 1);
    const ledger = ledgerOver(base);

    // Act
    const emitted = lowStockAfterEach(item, ledger, [take(item, at(A1), 3), receive(item, at(A1), 10), take(item, at(A1), 10)]);

    // Assess
    expect(emitted).toEqual([false, false, false]);
  });
});

describe('StockLedger: units', () => {
  it('rolls back to the state before begin(): on-hand, pending actions, documents; the unit drops its entries and events', () => {
    // Prepare: a kept unit receives 10 and opens a receipt with one line
    const item = itemOf({ reorderPoint: 8 });
    const ledger = ledgerOver();
    const receipt = newReceipt('imp_1', 'PO-1', NOW);
    ledger.begin();
    const received = ledger.move(receive(item, at(A1), 10));
    if (!received.ok || !received.to) throw new Error('expected a receipt');
    const line = { itemId: item.id, sku: item.sku, locationId: A1.id, quantity: 10, lot: null, stockRecordId: received.to.id };
    ledger.putDocument(withReceiptLine(receipt, line));
    ledger.endUnit();
    const kept = { actions: ledger.pendingActions(), bytes: ledger.pendingBytes(), writes: ledger.flush() };

    // Act: a unit that moves both records, crosses low-stock, adds a line and opens a count, rolled back
    ledger.begin();
    ledger.move({ type: 'transfer', item, quantity: 3, from: at(A1), to: at(B1), reference: 'T-1', occurredAt: LATER });
    ledger.move(take(item, at(A1), 5, LATER));
    ledger.putDocument(withReceiptLine(ledger.document(receipt.key) ?? receipt, { ...line, quantity: 1 }));
    ledger.putDocument(newCount('imp_1', 'CNT-1', A1.id, LATER));
    const during = ledger.peekUnit().events.length;
    ledger.rollback();

    // Assess
    expect(during).toBe(6);
    // (before any new read: a read is checked at commit, so it adds an action)
    expect(ledger.pendingActions()).toBe(kept.actions);
    expect(ledger.pendingBytes()).toBe(kept.bytes);
    expect(ledger.flush()).toEqual(kept.writes);
    expect(ledger.onHand(item, at(A1))).toBe(10);
    expect(ledger.onHand(item, at(B1))).toBe(0);
    expect(ledger.document(receipt.key)?.lines).toEqual([line]);
    expect(ledger.document('imp_1#stock-count#CNT-1')).toBeUndefined();
    expect(ledger.peekUnit()).toEqual({ writes: [], events: [] });
  });

  it('after a rollback decides again from the restored state (a crossing is announced again)', () => {
    // Prepare
    const item = itemOf({ reorderPoint: 10 });
    const base = new MemoryBase();
    base.put(item, at(A1), 10, 1);
    const ledger = ledgerOver(base);
    ledger.begin();
    ledger.move(take(item, at(A1), 1));
    ledger.rollback();

    // Act
    ledger.begin();
    ledger.move(take(item, at(A1), 1));
    const unit = ledger.endUnit();

    // Assess
    expect(typesOf(unit.events)).toEqual(['movement.created', 'stock.changed', 'low-stock']);
    expect(ledger.onHand(item, at(A1))).toBe(9);
  });

  it('refuses a rollback without begin, and after the unit ended', () => {
    // Prepare
    const ledger = ledgerOver();
    ledger.begin();
    ledger.endUnit();

    // Act / Assess
    expect(() => ledger.rollback()).toThrow(/rollback without begin/);
    expect(() => ledgerOver().rollback()).toThrow(/rollback without begin/);
  });

  it('gives what the chunk committed at the stored version + 1, or 1 for what it created', () => {
    // Prepare: a stored record (version 4) and total (version 7), a stored open receipt (version 2)
    const item = itemOf();
    const other = itemOf({ id: 'itm_other', sku: 'OTHER' });
    const base = new MemoryBase();
    base.put(item, at(A1), 10, 4, { onHand: 10, version: 7 });
    const stored = newReceipt('imp_1', 'PO-1', STORED_AT);
    base.documents.set(stored.key, { record: stored, version: 2 });
    const ledger = ledgerOver(base);

    // Act
    ledger.move(take(item, at(A1), 1));
    ledger.move(receive(other, at(A1), 2));
    ledger.putDocument(withReceiptLine(stored, { itemId: other.id, sku: other.sku, locationId: A1.id, quantity: 2, lot: null, stockRecordId: 'stk_new1' }));
    ledger.putDocument(newCount('imp_1', 'CNT-1', A1.id, NOW));
    const committed = ledger.committed();

    // Assess
    expect(committed.records.map(({ record, version }) => [record.itemId, record.onHand, version])).toEqual([
      [item.id, 9, 5],
      [other.id, 2, 1],
    ]);
    expect(committed.totals).toEqual([
      { record: { itemId: item.id, onHand: 9, trackingMode: 'none' }, version: 8 },
      { record: { itemId: other.id, onHand: 2, trackingMode: 'none' }, version: 1 },
    ]);
    expect(committed.documents.map(({ record, version }) => [record.key, record.lines.length, version])).toEqual([
      [stored.key, 1, 3],
      ['imp_1#stock-count#CNT-1', 0, 1],
    ]);
    expect(ledger.flush().filter((write) => write.op === 'put-document')).toEqual([
      { op: 'put-document', document: expect.objectContaining({ key: stored.key }), expectedVersion: 2 },
      { op: 'put-document', document: expect.objectContaining({ key: 'imp_1#stock-count#CNT-1' }), expectedVersion: null },
    ]);
  });
});

describe('StockLedger: receipts and counts', () => {
  const item = itemOf();
  const receiptLine = { itemId: item.id, sku: item.sku, locationId: A1.id, quantity: 4, lot: null, stockRecordId: 'stk_1' };
  const countLine = { itemId: item.id, sku: item.sku, lot: null, expected: 5, counted: 3, delta: -2 };

  it('closes a receipt with po.received listing its lines, once', () => {
    // Prepare
    const ledger = ledgerOver();
    const receipt = withReceiptLine(withReceiptLine(newReceipt('imp_1', 'PO-7', NOW), receiptLine), { ...receiptLine, quantity: 1, locationId: B1.id });
    ledger.putDocument(receipt);

    // Act
    ledger.begin();
    ledger.closeDocument(receipt.key, LATER);
    ledger.closeDocument(receipt.key, LATER);
    const first = ledger.endUnit();
    ledger.begin();
    ledger.closeDocument(receipt.key, LATER);
    const second = ledger.endUnit();

    // Assess
    expect(first.events).toEqual([
      {
        type: 'po.received',
        occurredAt: LATER,
        data: { poNumber: 'PO-7', receiptId: receipt.id, lines: [receiptLine, { ...receiptLine, quantity: 1, locationId: B1.id }] },
      },
    ]);
    expect(second.events).toEqual([]);
    expect(ledger.document(receipt.key)?.closed).toBe(true);
    expect(ledger.flush()).toEqual([{ op: 'put-document', document: { ...receipt, closed: true }, expectedVersion: null }]);
  });

  it('closes a count with count.completed listing expected, counted and delta', () => {
    // Prepare
    const ledger = ledgerOver();
    const count = withCountLine(newCount('imp_1', 'CNT-1', A1.id, NOW), countLine);
    ledger.putDocument(count);
    ledger.begin();

    // Act
    ledger.closeDocument(count.key, LATER);

    // Assess
    expect(ledger.peekUnit().events).toEqual([
      { type: 'count.completed', occurredAt: LATER, data: { countId: count.id, countReference: 'CNT-1', locationId: A1.id, lines: [countLine] } },
    ]);
  });

  it('announces nothing for a document with no lines, and leaves it open', () => {
    // Prepare
    const ledger = ledgerOver();
    const receipt = newReceipt('imp_1', 'PO-8', NOW);
    ledger.putDocument(receipt);
    ledger.begin();

    // Act
    ledger.closeDocument(receipt.key, LATER);
    ledger.closeDocument('imp_1#po-receipt#UNKNOWN', LATER);

    // Assess
    expect(ledger.peekUnit().events).toEqual([]);
    expect(ledger.document(receipt.key)?.closed).toBe(false);
  });

  it('does not announce again a document a previous chunk closed', () => {
    // Prepare: the stored count is closed already
    const base = new MemoryBase();
    const count = { ...withCountLine(newCount('imp_1', 'CNT-2', A1.id, NOW), countLine), closed: true };
    base.documents.set(count.key, { record: count, version: 3 });
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    ledger.closeDocument(count.key, LATER);

    // Assess
    expect(ledger.peekUnit().events).toEqual([]);
    expect(ledger.flush()).toEqual([]);
    expect(ledger.pendingActions()).toBe(0);
  });

  it('closes a document a previous chunk stored open, at its stored version', () => {
    // Prepare
    const base = new MemoryBase();
    const receipt = withReceiptLine(newReceipt('imp_1', 'PO-9', NOW), receiptLine);
    base.documents.set(receipt.key, { record: receipt, version: 5 });
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    ledger.closeDocument(receipt.key, LATER);

    // Assess
    expect(typesOf(ledger.peekUnit().events)).toEqual(['po.received']);
    expect(ledger.flush()).toEqual([{ op: 'put-document', document: { ...receipt, closed: true }, expectedVersion: 5 }]);
    expect(ledger.pendingActions()).toBe(1);
  });
});

describe('StockLedger: reservations (docs/inventory.md "Reservations and available stock")', () => {
  /** WIDGET at A1: 10 on hand, 6 of it reserved. */
  function reservedBase(item: Item): { base: MemoryBase; record: StockRecord } {
    const base = new MemoryBase();
    const record = base.put(item, at(A1), 10, 1);
    base.records.set(stockRecordKey(item.id, A1.id, null), { record: { ...record, reserved: 6 }, version: 1 });
    base.totals.set(item.id, { record: { itemId: item.id, onHand: 10, reserved: 6 }, version: 1 });
    return { base, record };
  }

  it('a hold moves reserved, not on-hand: stock.changed with delta 0, no movement, the reservation named; the total moves with it', () => {
    // Prepare
    const item = itemOf();
    const base = new MemoryBase();
    base.put(item, at(A1), 10, 1);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    const held = ledger.hold({ item, side: at(A1), quantity: 4, reservationId: 'res_1', occurredAt: NOW });

    // Assess
    expect(held).toMatchObject({ ok: true, record: { onHand: 10, reserved: 4 } });
    const { writes, events } = ledger.peekUnit();
    expect(writes).toEqual([]);
    expect(events).toEqual([
      {
        type: 'stock.changed',
        occurredAt: NOW,
        data: expect.objectContaining({
          previousQuantity: 10,
          quantity: 10,
          delta: 0,
          previousReserved: 0,
          reserved: 4,
          previousAvailable: 10,
          available: 6,
          movementId: null,
          reservationId: 'res_1',
        }),
      },
    ]);
    expect(ledger.flush()).toEqual(
      expect.arrayContaining([
        { op: 'put-item-stock', itemStock: { itemId: item.id, onHand: 10, reserved: 4, trackingMode: 'none' }, expectedVersion: 1, trackingModeRead: 'none' },
      ]),
    );
  });

  it('a hold takes only what is available, and a release never takes reserved below 0', () => {
    // Prepare
    const item = itemOf();
    const { base } = reservedBase(item);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    const tooMuch = ledger.hold({ item, side: at(A1), quantity: 5, reservationId: 'res_2', occurredAt: NOW });
    const released = ledger.hold({ item, side: at(A1), quantity: -9, reservationId: 'res_1', occurredAt: NOW });

    // Assess
    expect(tooMuch).toEqual({ ok: false, reason: 'insufficient-stock', available: 4 });
    expect(released).toMatchObject({ ok: true, record: { onHand: 10, reserved: 0 } });
  });

  it('an adjustment or a transfer draws only on available; a count sets on-hand even below reserved', () => {
    // Prepare
    const item = itemOf();
    const { base } = reservedBase(item);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    const adjusted = ledger.move(take(item, at(A1), 5));
    const transferred = ledger.move({ type: 'transfer', item, quantity: 5, from: at(A1), to: at(B1), reference: 'T-1', occurredAt: NOW });
    const counted = ledger.move({ type: 'count', item, quantity: 8, from: at(A1), reference: 'C-1', occurredAt: NOW });

    // Assess
    expect(adjusted).toEqual({ ok: false, reason: 'insufficient-stock', available: 4 });
    expect(transferred).toEqual({ ok: false, reason: 'insufficient-stock', available: 4 });
    expect(counted).toMatchObject({ ok: true, from: { onHand: 2, reserved: 6 } });
    expect(ledger.available(item, at(A1))).toBe(-4);
  });

  it('a shipment takes on-hand and reserved together: available stays, and low-stock follows available', () => {
    // Prepare
    const item = itemOf({ reorderPoint: 5 });
    const { base } = reservedBase(item);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act: ship the 6 the reservation holds
    const shipped = ledger.move({ type: 'shipment', item, quantity: 6, from: at(A1), reference: 'ORDER-9', reservationId: 'res_1', occurredAt: NOW });

    // Assess
    expect(shipped).toMatchObject({ ok: true, from: { onHand: 4, reserved: 0 } });
    const { events } = ledger.peekUnit();
    expect(events.map((event) => event.type)).toEqual(['movement.created', 'stock.changed']);
    expect(events[1]?.data).toMatchObject({
      previousQuantity: 10,
      quantity: 4,
      delta: -6,
      previousReserved: 6,
      reserved: 0,
      previousAvailable: 4,
      available: 4,
      reservationId: 'res_1',
    });
  });

  it('fires low-stock when a hold takes available below the reorder point, on-hand unchanged', () => {
    // Prepare
    const item = itemOf({ reorderPoint: 5 });
    const base = new MemoryBase();
    base.put(item, at(A1), 10, 1);
    const ledger = ledgerOver(base);
    ledger.begin();

    // Act
    ledger.hold({ item, side: at(A1), quantity: 6, reservationId: 'res_1', occurredAt: NOW });

    // Assess
    const { events } = ledger.peekUnit();
    expect(events.map((event) => event.type)).toEqual(['stock.changed', 'low-stock']);
    expect(events[1]?.data).toEqual({ itemId: item.id, sku: 'WIDGET', onHand: 10, reserved: 6, available: 4, reorderPoint: 5 });
  });
});
