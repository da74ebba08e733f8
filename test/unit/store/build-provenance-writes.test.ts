import { describe, expect, it } from 'vitest';
import type { BuildProvenance } from '../../../lib/boms/domain/records.ts';
import { CONSUMED_SLICE_LINES, provenanceItems, storedBuildOf } from '../../../lib/boms/store/build-provenance-items.ts';
import { BuildProvenanceStore } from '../../../lib/boms/store/build-provenance-store.ts';
import type { StoreWrite } from '../../../lib/platform/dynamo/transaction-writer.ts';

/**
 * How a build's provenance is cut into items and transactions (docs/boms.md "How provenance is
 * stored"), without storage: the integration test (test/integration/build-provenance.test.ts)
 * commits and reads them back.
 */

const ORG = 'org_unit';
const store = new BuildProvenanceStore('inventory-table');

function buildOf(lines: number, options: { sourcesPerRecord?: number } = {}): BuildProvenance {
  const perRecord = options.sourcesPerRecord ?? 1;
  return {
    id: 'bld_01JUNIT0000000000000000000',
    bomId: 'bom_01JUNIT0000000000000000000',
    revision: { id: 'rev_01JUNIT0000000000000000000', number: 3 },
    reference: 'BUILD-1',
    quantity: 2,
    outputItemId: 'itm_out',
    outputStockRecordId: 'stk_out',
    outputLot: 'F-1',
    locationId: 'loc_1',
    consumed: Array.from({ length: lines }, (_, index) => ({
      sourceStockRecordId: `stk_${Math.floor(index / perRecord)}`,
      itemId: `itm_${index % 7}`,
      quantity: 0.5,
      lot: `L-${index}`,
    })),
    builtAt: '2026-11-30T10:00:00.000Z',
  };
}

const put = (write: StoreWrite) => write.item.Put;
const kindOf = (write: StoreWrite) => put(write)?.Item?.entity as string;

describe('provenanceWriteGroups', () => {
  it('cuts 3,000 lines into groups of at most 100 puts: the slices, then the entries, then the pointer, last', () => {
    const build = buildOf(3000);

    const groups = store.provenanceWriteGroups(ORG, build, 100);

    const writes = groups.flat();
    expect(groups.map((group) => group.length)).toEqual([...Array(30).fill(100), 61]);
    expect(writes.map(kindOf)).toEqual([
      ...Array(3000 / CONSUMED_SLICE_LINES).fill('build-consumed-slice'),
      ...Array(3000).fill('build-provenance'),
      'record-pointer',
    ]);
    expect(writes.every((write) => put(write)?.ConditionExpression === 'attribute_not_exists(pk)')).toBe(true);
    expect(new Set(writes.map((write) => `${put(write)?.Item?.pk}|${put(write)?.Item?.sk}`)).size).toBe(writes.length);
  });

  it('keeps a small build in one group with its lines in the pointer, no slice: the pointer and an entry per stock record', () => {
    const build = buildOf(22);

    const [group, ...rest] = store.provenanceWriteGroups(ORG, build, 100);

    expect(rest).toEqual([]);
    expect(group?.map(kindOf)).toEqual([...Array(22).fill('build-provenance'), 'record-pointer']);
    expect(put(group?.at(-1) as StoreWrite)?.Item).toMatchObject({ consumed: build.consumed, sliceCount: 0, consumedCount: 22 });
    expect(store.buildWrites(ORG, build)).toEqual(group);
  });

  it('slices a small build whose writes need two groups, so that no entry waits on the pointer for its lines', () => {
    const groups = store.provenanceWriteGroups(ORG, buildOf(22), 10);

    expect(groups.map((group) => group.length)).toEqual([10, 10, 4]);
    expect(groups.flat().map(kindOf)[0]).toBe('build-consumed-slice');
    expect(put(groups.at(-1)?.at(-1) as StoreWrite)?.Item).toMatchObject({ sliceCount: 1, consumedCount: 22 });
    expect(put(groups.at(-1)?.at(-1) as StoreWrite)?.Item?.consumed).toBeUndefined();
  });

  it('refuses a group size that is not a positive integer', () => {
    expect(() => store.provenanceWriteGroups(ORG, buildOf(3), 0)).toThrow(RangeError);
  });
});

describe('the stored items', () => {
  it('an entry holds the header and its own record’s lines, every one when the build drew from that record alone', () => {
    const { entries, slices, pointer } = provenanceItems(ORG, buildOf(120, { sourcesPerRecord: 3 }), false);

    expect(entries).toHaveLength(40);
    expect(slices.map((slice) => (slice.consumed as unknown[]).length)).toEqual([50, 50, 20]);
    expect(entries[1]).toMatchObject({ consumedCount: 120, sliceCount: 3, consumed: [{ lot: 'L-3' }, { lot: 'L-4' }, { lot: 'L-5' }] });
    expect(entries[1]?.header).not.toHaveProperty('consumed');
    expect(storedBuildOf(entries[1] ?? {})).toMatchObject({ consumed: undefined, consumedCount: 120, sliceCount: 3 });
    expect(storedBuildOf(pointer)).toMatchObject({ consumed: undefined, consumedCount: 120, sliceCount: 3 });

    const [alone] = provenanceItems(ORG, buildOf(2, { sourcesPerRecord: 2 }), true).entries;
    expect(storedBuildOf(alone ?? {}).consumed).toHaveLength(2);
  });

  it('an item of the first layout (the whole provenance as `build`) is read whole', () => {
    const { consumed, ...header } = buildOf(4);

    expect(storedBuildOf({ build: { ...header, consumed }, schemaVersion: 1 })).toEqual({ header, consumed, consumedCount: 4, sliceCount: 0 });
  });
});
