import { describe, expect, it } from 'vitest';
import {
  applyMovement,
  NegativeStockError,
  onHandMatchesLedger,
  stockRecordKey,
  sumQuantities,
  type Movement,
  type StockRecord,
} from '../../../lib/inventory/domain/stock.ts';

const stock: StockRecord = {
  id: 'stk_1',
  itemId: 'itm_1',
  sku: 'SKU-1',
  locationId: 'loc_1',
  locationCode: 'A1',
  lot: null,
  onHand: 0,
  createdAt: '2026-11-22T10:00:00.000Z',
  updatedAt: '2026-11-22T10:00:00.000Z',
};
const movement = (quantity: number, id = `mov_${quantity}`): Movement => ({
  id,
  stockRecordId: 'stk_1',
  quantity,
  type: 'adjustment',
  reference: null,
  occurredAt: '2026-11-22T11:00:00.000Z',
});

describe('stock records', () => {
  it('sums decimal quantities exactly (0.1 + 0.2 is 0.3)', () => {
    expect(sumQuantities([0.1, 0.2])).toBe(0.3);
    expect(sumQuantities([1.000001, -0.000001])).toBe(1);
  });

  it('applies movements in order and keeps on-hand equal to the sum of the ledger', () => {
    // Prepare
    const ledger = [movement(10), movement(-2.5), movement(0.1), movement(0.2)];
    // Act
    const after = ledger.reduce(applyMovement, stock);
    // Assess
    expect(after.onHand).toBe(7.8);
    expect(after.updatedAt).toBe('2026-11-22T11:00:00.000Z');
    expect(onHandMatchesLedger(after, ledger)).toBe(true);
  });

  it('refuses a movement that would take on-hand below zero, and one of another stock record', () => {
    expect(() => applyMovement({ ...stock, onHand: 1 }, movement(-1.5))).toThrow(NegativeStockError);
    expect(() => applyMovement(stock, { ...movement(1), stockRecordId: 'stk_2' })).toThrow(/belongs to stk_2/);
  });

  it('keys one record per item × location × lot; no lot is its own key', () => {
    expect(stockRecordKey('itm_1', 'loc_1', null)).not.toBe(stockRecordKey('itm_1', 'loc_1', 'L1'));
    expect(stockRecordKey('itm_1', 'loc_1', 'L1')).toBe(stockRecordKey('itm_1', 'loc_1', 'L1'));
  });
});
