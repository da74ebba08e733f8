import { describe, expect, it } from 'vitest';
import type { VersionedRecord } from '../../../lib/inventory/domain/records.ts';
import type { StockRecord } from '../../../lib/inventory/domain/stock.ts';
import type { ItemStock } from '../../../lib/stock/domain/records.ts';
import { StockState, type StockReads } from '../../../lib/stock/domain/state.ts';

/** How the stock state reads (lib/stock/domain/state.ts): records and their items' totals in one batch where the store can. */

const record = (itemId: string): VersionedRecord<StockRecord> => ({
  record: {
    id: `stk_${itemId}`,
    itemId,
    sku: itemId,
    locationId: 'loc_a',
    locationCode: 'A',
    lot: null,
    onHand: 3,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt: '2026-01-01T00:00:00.000Z',
  },
  version: 2,
});
const total = (itemId: string): VersionedRecord<ItemStock> => ({ record: { itemId, onHand: 3 } as ItemStock, version: 4 });

function reads(withBatch: boolean) {
  const calls: string[] = [];
  const store: StockReads = {
    getByNaturalKeys: async (_org, entity, keys) => {
      calls.push(`${entity}:${[...keys].join(',')}`);
      return new Map([...keys].map((key) => [key, entity === 'stock-record' ? record(key.split('#')[0] ?? '') : total(key)] as const));
    },
    getItemsByIds: async () => new Map(),
    stockRecordsAt: async () => [],
    ...(withBatch
      ? {
          recordsAndTotals: async (_org: string, recordKeys: string[], itemIds: string[]) => {
            calls.push(`both:${recordKeys.join(',')}|${itemIds.join(',')}`);
            return {
              records: new Map(recordKeys.map((key) => [key, record(key.split('#')[0] ?? '')] as const)),
              totals: new Map(itemIds.map((id) => [id, total(id)] as const)),
            };
          },
        }
      : {}),
  };
  return { store, calls };
}

describe('StockState.read', () => {
  it('reads the records and their items’ totals in one batch when the store can, and nothing again', async () => {
    const { store, calls } = reads(true);
    const state = new StockState(store, 'org_a', []);
    await state.read({ stockRecords: ['itm_a#loc_a#', 'itm_b#loc_a#'], itemIds: ['itm_c'] });
    expect(calls).toEqual(['both:itm_a#loc_a#,itm_b#loc_a#|itm_c,itm_a,itm_b']);
    expect(state.stockRecord('itm_a#loc_a#')?.version).toBe(2);
    expect(state.itemStock('itm_b')?.version).toBe(4);
    await state.read({ stockRecords: ['itm_a#loc_a#'], itemIds: ['itm_c'] });
    expect(calls).toHaveLength(1);
  });

  it('reads records, then totals, from a store without the batch', async () => {
    const { store, calls } = reads(false);
    const state = new StockState(store, 'org_a', []);
    await state.read({ stockRecords: ['itm_a#loc_a#'], itemIds: ['itm_c'] });
    expect(calls).toEqual(['stock-record:itm_a#loc_a#', 'item-stock:itm_c,itm_a']);
    expect(state.itemStock('itm_a')?.version).toBe(4);
  });
});
