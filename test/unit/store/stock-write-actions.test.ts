import { describe, expect, it } from 'vitest';
import { NaturalKeyTakenError, STORED_ENTRIES_PER_WRITE } from '../../../lib/inventory/domain/records.ts';
import type { StockRecord } from '../../../lib/inventory/domain/stock.ts';
import { ImportRecordsStore } from '../../../lib/imports/store/import-records.ts';
import { InventoryStore } from '../../../lib/inventory/store/inventory-store.ts';
import { A1, at, B1, GADGET, locationOf, NOW, RESIN, WIDGET, World } from '../../support/stock-world.ts';

/**
 * The actions a chunk counts against the transaction limit (STORED_ENTRIES_PER_WRITE,
 * StockLedger.pendingActions) are exactly the actions the store writes for them
 * (docs/inventory.md "Reading inventory"). Built without a table: no request is sent.
 */

const TABLE = 'inventory-test';
const ORG = 'org_actions';
const store = new InventoryStore(TABLE);
const records = new ImportRecordsStore(TABLE);

const stockRecord: StockRecord = {
  id: 'stk_1',
  itemId: WIDGET.id,
  sku: WIDGET.sku,
  locationId: A1.id,
  locationCode: A1.code,
  lot: null,
  onHand: 4,
  createdAt: NOW,
  updatedAt: NOW,
};

/** The store's writes of what the ledger would flush now. */
const storedActionsOf = (world: World) => world.ledger.flush().flatMap((write) => records.writesOf(ORG, write));

describe('STORED_ENTRIES_PER_WRITE matches the store', () => {
  it.each([
    { type: 'item' as const, record: WIDGET },
    { type: 'location' as const, record: locationOf('loc_c1', 'C1') },
    { type: 'stock-record' as const, record: stockRecord },
  ])('$type: a create and an update write exactly the counted actions', ({ type, record }) => {
    expect(store.createWrites(ORG, type, record)).toHaveLength(STORED_ENTRIES_PER_WRITE[type].create);
    expect(store.updateWrites(ORG, type, record, 1)).toHaveLength(STORED_ENTRIES_PER_WRITE[type].update);
  });

  it('an update of a stock record writes the record alone: one Put, conditioned on its version', () => {
    // Act
    const writes = store.updateWrites(ORG, 'stock-record', { ...stockRecord, onHand: 9 }, 3);

    // Assess
    expect(writes).toHaveLength(1);
    expect(writes[0]?.item.Put).toMatchObject({
      Item: { pk: `ORG#${ORG}#stk_1`, sk: 'RECORD', version: 4, record: { onHand: 9 } },
      ExpressionAttributeValues: { ':expected': 3 },
    });
  });

  it("a stock record's list entries hold its keys, id and lot, never the record", () => {
    // Act
    const entries = store
      .createWrites(ORG, 'stock-record', { ...stockRecord, lot: 'L-1' })
      .slice(1, 3)
      .map((write) => write.item.Put?.Item);

    // Assess
    expect(entries.map((entry) => entry?.sk)).toEqual([`ITEM#${WIDGET.id}#${A1.id}#L-1`, `LOC#${A1.id}#${WIDGET.id}#L-1`]);
    for (const entry of entries) {
      expect(entry).toEqual({
        pk: `ORG#${ORG}#LIST#stock-record`,
        sk: entry?.sk,
        entity: 'inventory-list-entry',
        schemaVersion: 2,
        organizationId: ORG,
        recordType: 'stock-record',
        id: 'stk_1',
        lot: 'L-1',
      });
    }
  });
});

describe("a lot record that comes to hold stock puts its lot among its place's stocked lots", () => {
  const lotRecord = { ...stockRecord, lot: 'L-1' };
  const stockedEntry = { pk: `ORG#${ORG}#STOCKED#${WIDGET.id}#${A1.id}`, sk: 'LOT#L-1', entity: 'stocked-lot', schemaVersion: 1, id: 'stk_1', lot: 'L-1' };

  it.each([
    ['a create with stock', () => store.createWrites(ORG, 'stock-record', lotRecord), [stockedEntry]],
    ['a create at 0', () => store.createWrites(ORG, 'stock-record', { ...lotRecord, onHand: 0 }), []],
    ['an update from 0', () => store.updateWrites(ORG, 'stock-record', lotRecord, 2, 0), [stockedEntry]],
    ['an update from stock', () => store.updateWrites(ORG, 'stock-record', lotRecord, 2, 3), []],
    ['an update to 0', () => store.updateWrites(ORG, 'stock-record', { ...lotRecord, onHand: 0 }, 2, 3), []],
    ['a record without lot', () => store.createWrites(ORG, 'stock-record', stockRecord), []],
  ])('%s', (_name, writesOf, expected) => {
    // Act
    const stocked = writesOf().flatMap((write) => (write.item.Put?.Item?.entity === 'stocked-lot' ? [write.item.Put.Item] : []));

    // Assess: the entry is one unconditional Put
    expect(stocked).toEqual(expected);
  });

  it("the ledger counts that action in a chunk's pending actions, as the store writes it", () => {
    // Prepare: a lot at 0 received again, and a new lot received
    const world = new World();
    const resin = RESIN;
    world.stock(resin, at(A1, 'L-0'), 0);
    world.ledger.begin();
    world.ledger.move({ type: 'receipt', item: resin, quantity: 4, to: at(A1, 'L-0'), reference: 'PO-1', occurredAt: NOW });
    world.ledger.move({ type: 'receipt', item: resin, quantity: 4, to: at(A1, 'L-NEW'), reference: 'PO-1', occurredAt: NOW });
    world.ledger.endUnit();

    // Act
    const actions = storedActionsOf(world);

    // Assess: L-0's update (1) and entry (1), L-NEW's create (3) and entry (1), the item total (1)
    expect(actions).toHaveLength(world.ledger.pendingActions());
    expect(actions.filter((write) => write.item.Put?.Item?.entity === 'stocked-lot')).toHaveLength(2);
  });
});

describe("a record's natural key is claimed by one of its list entries", () => {
  const byItemKey = { pk: `ORG#${ORG}#LIST#stock-record`, sk: `ITEM#${WIDGET.id}#${A1.id}#` };

  it('a create puts 3 items: the record, and its two entries, the by-item one only where absent; no claim item', () => {
    // Act
    const writes = store.createWrites(ORG, 'stock-record', stockRecord);

    // Assess
    expect(writes.map((write) => [write.item.Put?.Item?.sk, write.item.Put?.ConditionExpression])).toEqual([
      ['RECORD', 'attribute_not_exists(pk)'],
      [byItemKey.sk, 'attribute_not_exists(pk)'],
      [`LOC#${A1.id}#${WIDGET.id}#`, undefined],
    ]);
    expect(writes[1]?.item.Put?.Item).toMatchObject(byItemKey);
    expect(writes.some((write) => String(write.item.Put?.Item?.pk).includes('#NK#'))).toBe(false);
    const taken = writes[1]?.onConditionFailed?.();
    expect(taken).toBeInstanceOf(NaturalKeyTakenError);
    expect(taken).toMatchObject({ recordType: 'stock-record', naturalKey: `${WIDGET.id}#${A1.id}#` });
  });

  it.each([
    { type: 'item' as const, record: WIDGET, sortKey: `SKU#${WIDGET.sku}`, naturalKey: WIDGET.sku },
    { type: 'location' as const, record: A1, sortKey: `CODE#${A1.code}`, naturalKey: A1.code },
  ])(
    'a create of an $type puts 2 items: the record, and its list entry only where absent, which claims the natural key; no claim item',
    ({ type, record, sortKey, naturalKey }) => {
      // Act
      const writes = store.createWrites(ORG, type, record);

      // Assess
      expect(writes.map((write) => [write.item.Put?.Item?.pk, write.item.Put?.Item?.sk, write.item.Put?.ConditionExpression])).toEqual([
        [`ORG#${ORG}#${record.id}`, 'RECORD', 'attribute_not_exists(pk)'],
        [`ORG#${ORG}#LIST#${type}`, sortKey, 'attribute_not_exists(pk)'],
      ]);
      expect(writes[1]?.item.Put?.Item).toMatchObject({ id: record.id, record });
      expect(writes[1]?.onConditionFailed?.()).toMatchObject({ recordType: type, naturalKey });
    },
  );

  it('"still absent" checks the entry a create claims the key with: the by-item entry, an item\'s by-sku entry', () => {
    // Act
    const stockCheck = store.unchangedCheck(ORG, 'stock-record', stockRecord, null).item.ConditionCheck;
    const itemCheck = store.unchangedCheck(ORG, 'item', WIDGET, null).item.ConditionCheck;

    // Assess
    expect(stockCheck).toMatchObject({ Key: byItemKey, ConditionExpression: 'attribute_not_exists(pk)' });
    expect(itemCheck).toMatchObject({ Key: { pk: `ORG#${ORG}#LIST#item`, sk: `SKU#${WIDGET.sku}` }, ConditionExpression: 'attribute_not_exists(pk)' });
  });
});

describe('StockLedger.pendingActions() matches the store writes of its flush', () => {
  it.each([
    {
      label: 'a receipt into an empty place (a create)',
      act: (world: World) => world.ledger.move({ type: 'receipt', item: WIDGET, quantity: 2, to: at(A1), reference: 'PO-1', occurredAt: NOW }),
    },
    {
      label: 'an adjustment of a stored record (an update)',
      act: (world: World) => world.ledger.move({ type: 'adjustment', item: WIDGET, quantity: 1, from: at(A1), reference: 'ADJ-1', occurredAt: NOW }),
    },
    {
      label: 'a transfer from a stored record to a new one',
      act: (world: World) => world.ledger.move({ type: 'transfer', item: WIDGET, quantity: 1, from: at(A1), to: at(B1), reference: 'T-1', occurredAt: NOW }),
    },
    {
      label: 'a refused take (a check of what was read)',
      act: (world: World) => world.ledger.move({ type: 'adjustment', item: WIDGET, quantity: 99, from: at(A1), reference: 'ADJ-2', occurredAt: NOW }),
    },
    {
      label: 'a refused take from an empty place (a check that it is still absent)',
      act: (world: World) => world.ledger.move({ type: 'adjustment', item: GADGET, quantity: 1, from: at(B1), reference: 'ADJ-3', occurredAt: NOW }),
    },
    {
      label: 'receipts into three empty places (three creates)',
      act: (world: World) => {
        for (const [item, side] of [
          [GADGET, at(A1)],
          [GADGET, at(B1)],
          [RESIN, at(B1, 'L-2')],
        ] as const) {
          world.ledger.move({ type: 'receipt', item, quantity: 1, to: side, reference: 'PO-4', occurredAt: NOW });
        }
      },
    },
    {
      label: 'several moves of several items, coalesced',
      act: (world: World) => {
        world.ledger.move({ type: 'receipt', item: WIDGET, quantity: 2, to: at(A1), reference: 'PO-1', occurredAt: NOW });
        world.ledger.move({ type: 'transfer', item: WIDGET, quantity: 3, from: at(A1), to: at(B1), reference: 'T-1', occurredAt: NOW });
        world.ledger.move({ type: 'receipt', item: RESIN, quantity: 2, to: at(A1, 'L-9'), reference: 'PO-2', occurredAt: NOW });
        world.ledger.move({ type: 'receipt', item: GADGET, quantity: 1, to: at(B1), reference: 'PO-3', occurredAt: NOW });
      },
    },
  ])('$label', ({ act }) => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 5);

    // Act
    act(world);

    // Assess
    expect(world.ledger.pendingActions()).toBe(storedActionsOf(world).length);
  });

  it('a transfer writes no item total and checks none: its records only', () => {
    // Prepare
    const world = new World();
    world.stock(WIDGET, at(A1), 5);
    world.stock(WIDGET, at(B1), 1);

    // Act
    world.ledger.move({ type: 'transfer', item: WIDGET, quantity: 2, from: at(A1), to: at(B1), reference: 'T-1', occurredAt: NOW });

    // Assess: two record updates, one action each
    const writes = storedActionsOf(world);
    expect(writes.map((write) => write.item.Put?.Item?.sk)).toEqual(['RECORD', 'RECORD']);
    expect(world.ledger.pendingActions()).toBe(2);
  });
});
