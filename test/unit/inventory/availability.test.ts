import { describe, expect, it } from 'vitest';
import { quantityStates } from '../../../lib/domain/inventory/availability.ts';
import { itemView } from '../../../lib/domain/inventory/item-reads.ts';
import { stockRecordView } from '../../../lib/domain/inventory/reads.ts';
import type { StockRecord } from '../../../lib/domain/inventory/stock.ts';
import { itemOf } from '../../support/stock-world.ts';

/** The three quantity states on the reads (docs/inventory.md "Reading inventory"). */

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
    expect(view).toEqual({ id: 'stk_1', itemId: 'itm_0000000001', sku: 'RESIN', locationId: 'loc_a', locationCode: 'C-a', lot: 'L1', quantity: 7.5, onHand: 7.5, reserved: 2.25, available: 5.25, updatedAt: at });
    expect(before).toMatchObject({ quantity: 4, onHand: 4, reserved: 0, available: 4 });
  });

  it('shows an item with its stored totals, and all 0 for an item that never held stock', () => {
    // Prepare
    const item = itemOf('itm_0000000001', 'RESIN');

    // Act + Assess
    expect(itemView(item, { itemId: item.id, onHand: 12, reserved: 5 })).toEqual({ ...item, onHand: 12, reserved: 5, available: 7 });
    expect(itemView(item, { itemId: item.id, onHand: 12 })).toMatchObject({ onHand: 12, reserved: 0, available: 12 });
    expect(itemView(item, undefined)).toMatchObject({ onHand: 0, reserved: 0, available: 0 });
  });
});
