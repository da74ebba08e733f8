import { describe, expect, it } from 'vitest';
import {
  availabilityCut,
  itemAvailability,
  ItemAvailabilityReads,
  quantityStates,
  type AvailabilityEntry,
  type ItemAvailabilityStorage,
} from '../../../lib/inventory/domain/availability.ts';
import { itemView } from '../../../lib/inventory/domain/item-reads.ts';
import { stockRecordView } from '../../../lib/inventory/domain/reads.ts';
import type { StockRecord } from '../../../lib/inventory/domain/stock.ts';
import { itemOf } from '../../support/stock-world.ts';

/** The three quantity states on the reads, and how GET /v1/items/{id}/availability groups and cuts an item's records (docs/inventory.md "Reading inventory"). */

const at = '2026-11-27T10:00:00.000Z';
const record = (id: string, locationId: string, lot: string | null, onHand: number, reserved?: number): StockRecord => ({
  id,
  itemId: 'itm_0000000001',
  sku: 'RESIN',
  locationId,
  locationCode: locationId.replace('loc_', 'C-'),
  lot,
  onHand,
  ...(reserved === undefined ? {} : { reserved }),
  createdAt: at,
  updatedAt: at,
});
const entries = (...locations: string[]): AvailabilityEntry[] => locations.map((locationId, index) => ({ stockRecordId: `stk_${index}`, locationId }));

describe('quantity states', () => {
  it('reads an absent reserved as 0, and available exactly as onHand − reserved, negative after a count below what is reserved', () => {
    expect(quantityStates({ onHand: 5 })).toEqual({ onHand: 5, reserved: 0, available: 5 });
    expect(quantityStates({ onHand: 0.3, reserved: 0.1 })).toEqual({ onHand: 0.3, reserved: 0.1, available: 0.2 });
    expect(quantityStates({ onHand: 1, reserved: 3 })).toEqual({ onHand: 1, reserved: 3, available: -2 });
  });

  it('shows a stock record with quantity kept as the alias of onHand, and its reserved and available', () => {
    // Act
    const view = stockRecordView(record('stk_1', 'loc_a', 'L1', 7.5, 2.25));
    const before = stockRecordView(record('stk_2', 'loc_a', null, 4));

    // Assess
    expect(view).toEqual({
      id: 'stk_1',
      itemId: 'itm_0000000001',
      sku: 'RESIN',
      locationId: 'loc_a',
      locationCode: 'C-a',
      lot: 'L1',
      quantity: 7.5,
      onHand: 7.5,
      reserved: 2.25,
      available: 5.25,
      updatedAt: at,
    });
    expect(before).toMatchObject({ quantity: 4, onHand: 4, reserved: 0, available: 4 });
  });

  it('shows an item with its stored totals, and all 0 for an item that never held stock', () => {
    // Prepare
    const item = itemOf('itm_0000000001', 'RESIN');

    // Act + Assess
    expect(itemView(item, { itemId: item.id, onHand: 12, reserved: 5 }, 3)).toEqual({
      ...item,
      status: 'active',
      version: 3,
      onHand: 12,
      reserved: 5,
      available: 7,
    });
    expect(itemView(item, { itemId: item.id, onHand: 12 })).toMatchObject({ onHand: 12, reserved: 0, available: 12 });
    expect(itemView(item, undefined)).toMatchObject({ onHand: 0, reserved: 0, available: 0 });
  });
});

describe('availabilityCut', () => {
  it('answers everything when it all fits and nothing follows', () => {
    expect(availabilityCut(entries('loc_a', 'loc_a', 'loc_b'), false, 3)).toEqual({
      stockRecordIds: ['stk_0', 'stk_1', 'stk_2'],
      truncated: false,
      nextAfterLocationId: null,
      lotsTruncatedLocationId: null,
    });
    expect(availabilityCut([], false, 3)).toEqual({ stockRecordIds: [], truncated: false, nextAfterLocationId: null, lotsTruncatedLocationId: null });
  });

  it('keeps every record read when the one past the budget starts another location', () => {
    expect(availabilityCut(entries('loc_a', 'loc_b', 'loc_b', 'loc_c'), true, 3)).toEqual({
      stockRecordIds: ['stk_0', 'stk_1', 'stk_2'],
      truncated: true,
      nextAfterLocationId: 'loc_b',
      lotsTruncatedLocationId: null,
    });
  });

  it('leaves a location whose lots go on past the budget to the next response', () => {
    expect(availabilityCut(entries('loc_a', 'loc_a', 'loc_b', 'loc_b'), true, 3)).toEqual({
      stockRecordIds: ['stk_0', 'stk_1'],
      truncated: true,
      nextAfterLocationId: 'loc_a',
      lotsTruncatedLocationId: null,
    });
  });

  it('when the store stopped short (its 1 MB page), treats the last location read as unfinished', () => {
    expect(availabilityCut(entries('loc_a', 'loc_b'), true, 3)).toEqual({
      stockRecordIds: ['stk_0'],
      truncated: true,
      nextAfterLocationId: 'loc_a',
      lotsTruncatedLocationId: null,
    });
  });

  it('answers a location that alone holds more than the budget with its first lots, marked, and goes on after it', () => {
    expect(availabilityCut(entries('loc_a', 'loc_a', 'loc_a', 'loc_a'), true, 3)).toEqual({
      stockRecordIds: ['stk_0', 'stk_1', 'stk_2'],
      truncated: true,
      nextAfterLocationId: 'loc_a',
      lotsTruncatedLocationId: 'loc_a',
    });
  });
});

describe('itemAvailability', () => {
  it("groups the records by location in list order, each location's states the exact sums of its lots, the totals the item's stored ones", () => {
    // Prepare
    const records = [record('stk_1', 'loc_a', null, 0.1), record('stk_2', 'loc_a', 'L1', 0.2, 0.05), record('stk_3', 'loc_b', 'L1', 3, 4)];
    const cut = { stockRecordIds: records.map((r) => r.id), truncated: true, nextAfterLocationId: 'loc_b', lotsTruncatedLocationId: null };

    // Act
    const answer = itemAvailability({ id: 'itm_0000000001', sku: 'RESIN' }, { itemId: 'itm_0000000001', onHand: 20.3, reserved: 4.05 }, records, cut);

    // Assess
    expect(answer).toEqual({
      itemId: 'itm_0000000001',
      sku: 'RESIN',
      onHand: 20.3,
      reserved: 4.05,
      available: 16.25,
      locations: [
        {
          locationId: 'loc_a',
          locationCode: 'C-a',
          onHand: 0.3,
          reserved: 0.05,
          available: 0.25,
          lotsTruncated: false,
          lots: [
            { lot: null, stockRecordId: 'stk_1', onHand: 0.1, reserved: 0, available: 0.1 },
            { lot: 'L1', stockRecordId: 'stk_2', onHand: 0.2, reserved: 0.05, available: 0.15 },
          ],
        },
        {
          locationId: 'loc_b',
          locationCode: 'C-b',
          onHand: 3,
          reserved: 4,
          available: -1,
          lotsTruncated: false,
          lots: [{ lot: 'L1', stockRecordId: 'stk_3', onHand: 3, reserved: 4, available: -1 }],
        },
      ],
      truncated: true,
      nextAfterLocationId: 'loc_b',
    });
  });

  it('answers an item without stock records with its totals at 0 and no location', () => {
    expect(itemAvailability({ id: 'itm_0000000001', sku: 'RESIN' }, undefined, [], availabilityCut([], false))).toEqual({
      itemId: 'itm_0000000001',
      sku: 'RESIN',
      onHand: 0,
      reserved: 0,
      available: 0,
      locations: [],
      truncated: false,
      nextAfterLocationId: null,
    });
  });
});

describe('ItemAvailabilityReads', () => {
  const storage = (records: StockRecord[], calls: string[]): ItemAvailabilityStorage => ({
    stockRecordEntriesOfItem: async (_organizationId, _itemId, afterLocationId, limit) => {
      calls.push(`entries after ${afterLocationId ?? '-'} limit ${limit}`);
      const listed = records.filter((r) => afterLocationId === undefined || r.locationId > afterLocationId);
      return { entries: listed.slice(0, limit).map((r) => ({ stockRecordId: r.id, locationId: r.locationId })), more: listed.length > limit };
    },
    itemWithStockRecords: async (_organizationId, itemId, ids) => {
      calls.push(`item with ${ids.length} records`);
      if (itemId !== 'itm_0000000001') return undefined;
      // Read by id: in no particular order.
      return {
        item: itemOf(itemId, 'RESIN'),
        stock: { itemId, onHand: 10 },
        records: new Map(
          [...records]
            .reverse()
            .filter((r) => ids.includes(r.id))
            .map((r) => [r.id, r]),
        ),
      };
    },
  });

  it('reads the entries, then the item with its total and the records, answering the records in list order', async () => {
    // Prepare
    const calls: string[] = [];
    const records = [record('stk_1', 'loc_a', null, 4), record('stk_2', 'loc_b', 'A', 1), record('stk_3', 'loc_b', 'B', 5)];

    // Act
    const answer = await new ItemAvailabilityReads(storage(records, calls)).availability('org', 'itm_0000000001');
    const after = await new ItemAvailabilityReads(storage(records, [])).availability('org', 'itm_0000000001', 'loc_a');

    // Assess
    expect(calls).toEqual(['entries after - limit 1001', 'item with 3 records']);
    expect(answer.locations.map((location) => [location.locationId, location.onHand, location.lots.map((lot) => lot.lot)])).toEqual([
      ['loc_a', 4, [null]],
      ['loc_b', 6, ['A', 'B']],
    ]);
    expect(after.locations.map((location) => location.locationId)).toEqual(['loc_b']);
    expect(after.onHand).toBe(10);
  });

  it('answers the inventory 404 for an unknown item, and for an id of another type without reading', async () => {
    // Prepare
    const calls: string[] = [];
    const reads = new ItemAvailabilityReads(storage([], calls));

    // Act + Assess
    await expect(reads.availability('org', 'itm_0000000009')).rejects.toMatchObject({ status: 404, code: 'customer-api.inventory.not-found' });
    await expect(reads.availability('org', 'loc_0000000001')).rejects.toMatchObject({ status: 404, code: 'customer-api.inventory.not-found' });
    expect(calls).toEqual(['entries after - limit 1001', 'item with 0 records']);
  });
});
