import { describe, expect, it } from 'vitest';
import type { ImportRecords, RecordWrite } from '../../../lib/imports/domain/kind-definition.ts';
import { DryRunOverlay, entriesOf } from '../../../lib/imports/domain/pipeline/dry-run-overlay.ts';
import { DryRunRecords } from '../../../lib/imports/domain/pipeline/dry-run-records.ts';
import type { Item } from '../../../lib/inventory/domain/item.ts';
import type { VersionedRecord } from '../../../lib/inventory/domain/records.ts';
import type { StockRecord } from '../../../lib/inventory/domain/stock.ts';

/**
 * The records port of a dry run (docs/imports.md "Dry runs"): what a write would leave stored,
 * reads that consult the overlay before the store (and ask the store only for the rest), and a
 * chunk's storage actions split into record writes (for the overlay) and the job's own.
 */

const NOW = '2026-11-27T00:00:00.000Z';
const item = (sku: string, id = `itm_${sku}`): Item => ({
  id,
  sku,
  name: sku,
  unit: 'ea',
  description: null,
  category: null,
  barcode: null,
  reorderPoint: null,
  trackingMode: 'lot',
  createdAt: NOW,
  updatedAt: NOW,
});
const stock = (lot: string, onHand: number): StockRecord => ({
  id: `stk_${lot}`,
  itemId: 'itm_A',
  sku: 'A',
  locationId: 'loc_1',
  locationCode: 'W1',
  lot,
  onHand,
  createdAt: NOW,
  updatedAt: NOW,
});

interface Action {
  of: string;
}

/** A store holding item B and lot L0 of item A at loc_1; it records what it is asked. */
function fakeStore() {
  const asked: string[] = [];
  const store: ImportRecords<Action> = {
    async getByNaturalKeys(_organizationId, entity, keys) {
      const list = [...keys];
      asked.push(`${entity}:${list.join(',')}`);
      return new Map(
        list.filter((key) => entity === 'item' && key === 'B').map((key): [string, VersionedRecord<unknown>] => [key, { record: item('B'), version: 4 }]),
      );
    },
    async getItemsByIds(_organizationId, ids) {
      const list = [...ids];
      asked.push(`ids:${list.join(',')}`);
      return new Map(list.filter((id) => id === 'itm_B').map((id): [string, Item] => [id, item('B')]));
    },
    async stockRecordsAt() {
      return [stock('L0', 3)];
    },
    writesOf: (_organizationId, write) => [{ of: write.op }, { of: `${write.op} claim` }],
  };
  return { store, asked };
}

describe('entriesOf', () => {
  it('gives what the store would hold: version 1 for a create, the read version + 1 for an update; nothing for checks, movements and builds', () => {
    expect(entriesOf({ op: 'create', entity: 'item', record: item('A') })).toEqual([{ entity: 'item', key: 'A', stored: { record: item('A'), version: 1 } }]);
    expect(entriesOf({ op: 'update', entity: 'item', record: item('B'), expectedVersion: 4 })).toEqual([
      { entity: 'item', key: 'B', stored: { record: item('B'), version: 5 } },
    ]);
    expect(entriesOf({ op: 'put-item-stock', itemStock: { itemId: 'itm_A', onHand: 2 }, expectedVersion: null, trackingModeRead: 'lot' })[0]).toMatchObject({
      entity: 'item-stock',
      key: 'itm_A',
      stored: { version: 1 },
    });
    expect(entriesOf({ op: 'claim-entry', entry: { key: 'k', jobId: 'imp_1', movementIds: [], appliedAt: NOW } })[0]).toMatchObject({
      entity: 'stock-entry',
      key: 'k',
    });
    expect(entriesOf({ op: 'check-item-stock', itemId: 'itm_A', expectedVersion: 1 })).toEqual([]);
    expect(entriesOf({ op: 'check-bom', bomId: 'bom_1', expectedVersion: 1 })).toEqual([]);
  });
});

describe('DryRunRecords', () => {
  it('reads what the overlay holds from it, and asks the store only for the other keys', async () => {
    const { store, asked } = fakeStore();
    const records = new DryRunRecords(store, new DryRunOverlay(entriesOf({ op: 'create', entity: 'item', record: item('A') })));

    const found = await records.getByNaturalKeys('org_1', 'item', ['A', 'B', 'C']);
    const onlyOverlay = await records.getByNaturalKeys('org_1', 'item', ['A']);
    const byId = await records.getItemsByIds('org_1', ['itm_A', 'itm_B']);

    expect([...found]).toEqual([
      ['A', { record: item('A'), version: 1 }],
      ['B', { record: item('B'), version: 4 }],
    ]);
    expect([...onlyOverlay.keys()]).toEqual(['A']);
    expect([...byId.keys()]).toEqual(['itm_A', 'itm_B']);
    expect(asked).toEqual(['item:B,C', 'ids:itm_B']);
  });

  it('lists a place’s stock records with those the dry run would have created or changed', async () => {
    const { store } = fakeStore();
    const overlay = new DryRunOverlay([
      ...entriesOf({ op: 'update', entity: 'stock-record', record: stock('L0', 1), expectedVersion: 2 }),
      ...entriesOf({ op: 'create', entity: 'stock-record', record: stock('L1', 5) }),
    ]);

    const listed = await new DryRunRecords(store, overlay).stockRecordsAt('org_1', [{ itemId: 'itm_A', locationId: 'loc_1' }]);

    expect(listed.map((record) => [record.lot, record.onHand])).toEqual([
      ['L0', 1],
      ['L1', 5],
    ]);
  });

  it('splits a chunk’s actions: each record write once, in order, for the overlay; the job’s own actions kept', () => {
    const { store } = fakeStore();
    const records = new DryRunRecords(store, new DryRunOverlay());
    const create: RecordWrite = { op: 'create', entity: 'item', record: item('A') };
    const claim: RecordWrite = { op: 'claim-entry', entry: { key: 'k', jobId: 'imp_1', movementIds: [], appliedAt: NOW } };
    const rowError: Action = { of: 'row error' };

    const { recordWrites, kept } = records.split([...records.writesOf('org_1', create), rowError, ...records.writesOf('org_1', claim)]);

    expect(recordWrites).toEqual([create, claim]);
    expect(kept).toEqual([rowError]);
  });
});
