import { beforeAll, describe, expect, it } from 'vitest';
import type { Bom, BuildProvenance, ConsumedLine } from '../../lib/boms/domain/records.ts';
import { BomReads } from '../../lib/boms/domain/reads.ts';
import { newId } from '../../lib/platform/core/ids.ts';
import { LotTraces } from '../../lib/lots/domain/trace-lot.ts';
import { nodesOfBuild } from '../../lib/lots/domain/trace-tree.ts';
import { CONSUMED_SLICE_LINES } from '../../lib/boms/store/build-provenance-items.ts';
import { BUILDS_PAGE_MAX_CONSUMED_LINES, BuildProvenanceStore } from '../../lib/boms/store/build-provenance-store.ts';
import { dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { batchGet } from '../../lib/platform/dynamo/entity.ts';
import { buildConsumedSliceEntity, buildPointerEntity, buildProvenanceEntity } from '../../lib/boms/store/entities.ts';
import { LotTraceStore } from '../../lib/lots/store/lot-trace-store.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { uniqueOrganization } from '../support/api.ts';
import { bomsStore } from '../support/boms.ts';
import { cursorCodec, tableName, transactionWriter } from '../support/events.ts';
import { importRecords, itemsOf, runImportInProcess } from '../support/imports.ts';
import { storedItemBytes } from '../support/item-size.ts';
import { legacyBuildWrites } from '../support/legacy-provenance.ts';
import { eventuallyTraced } from '../support/lots.ts';

/**
 * Build provenance of any size on the local stack (docs/boms.md "How provenance is stored"): a
 * build of 3,000 consumed lines written in transactions of at most 100 actions, as the build
 * runner commits it, read back whole through `GET /v1/boms/{id}/builds` (BomReads, paged) and
 * the lot trace both ways, beside builds of the first layout (every item holding the whole
 * provenance), which deployments still hold.
 */

const organizationId = uniqueOrganization();
const provenance = () => new BuildProvenanceStore(tableName('inventory'));
const reads = () => new BomReads(bomsStore(), cursorCodec());
const traces = () => new LotTraces(new LotTraceStore(tableName('inventory')), cursorCodec());

/** The stock record every build below drew from (first line of each), of COMP lot L-0000. */
const SHARED = 'stk_shared0000000000000000';
const lotOf = (index: number) => `LOT-2026-11-${String(index).padStart(4, '0')}`;

let ids: { comp: string; fin: string; screw: string; bomId: string };
/** Every build that drew from SHARED, by id (the builds list's order). */
let builds: BuildProvenance[] = [];
let big: BuildProvenance;
let legacy: BuildProvenance;
let groupSizes: number[] = [];

let builtAtSequence = 0;
function buildOf(reference: string, consumed: ConsumedLine[], outputLot: string): BuildProvenance {
  builtAtSequence += 1;
  return {
    id: newId('bld'),
    bomId: ids.bomId,
    revision: { id: 'rev_provenance0000000000000', number: 1 },
    reference,
    quantity: 4,
    outputItemId: ids.fin,
    outputStockRecordId: `stk_out_${reference}`,
    outputLot,
    locationId: 'loc_provenance',
    consumed,
    builtAt: new Date(Date.UTC(2026, 10, 30, 9, 0, builtAtSequence)).toISOString(),
  };
}

/**
 * `count` lines, the first from SHARED (unless `apart`, which draws other lots): COMP lots drawn
 * from 5 stock records each (5 locations), and the last `screws` lines of SCREW, which has no lots.
 */
function linesOf(prefix: string, count: number, options: { screws?: number; apart?: boolean } = {}): ConsumedLine[] {
  const screws = options.screws ?? 0;
  const lot = (index: number) => (options.apart ? `${prefix}-${index}` : lotOf(index));
  return Array.from({ length: count }, (_, index) => {
    if (index >= count - screws) return { sourceStockRecordId: `stk_${prefix}s${index}`, itemId: ids.screw, quantity: 2, lot: null };
    return {
      sourceStockRecordId: index === 0 && !options.apart ? SHARED : `stk_${prefix}${index}`,
      itemId: ids.comp,
      quantity: 0.25 * (1 + (index % 4)),
      lot: lot(Math.floor(index / 5)),
    };
  });
}

/** Commits each group in a transaction of its own, as the build runner does. */
async function commit(group: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: { type: 'system', id: 'provenance-tests' }, traceId: null }, async () => ({
    writes: group,
    events: [],
    result: undefined,
  }));
}

async function writeInGroups(build: BuildProvenance): Promise<number[]> {
  const groups = provenance().provenanceWriteGroups(organizationId, build, 100);
  for (const group of groups) await commit(group);
  return groups.map((group) => group.length);
}

/** Every page of the builds list from SHARED, `limit` builds at most a page. */
async function allPages(limit: number): Promise<BuildProvenance[][]> {
  const pages: BuildProvenance[][] = [];
  let cursor: string | undefined;
  do {
    const page = await reads().builds(organizationId, ids.bomId, SHARED, { limit, ...(cursor === undefined ? {} : { cursor }) });
    pages.push(page.data);
    cursor = page.page.nextCursor ?? undefined;
  } while (cursor !== undefined);
  return pages;
}

const linesIn = (page: readonly BuildProvenance[]) => page.reduce((total, build) => total + build.consumed.length, 0);
const nodesOf = (build: BuildProvenance, direction: 'forward' | 'backward') =>
  nodesOfBuild(build, direction).map(({ itemId, lot, quantity, buildId }) => ({ itemId, lot, quantity, buildId }));

beforeAll(async () => {
  await runImportInProcess(organizationId, 'items', 'sku,name,trackingMode\nCOMP,Component,lot\nFIN,Finished,lot\nSCREW,Screw,none\n');
  await runImportInProcess(organizationId, 'boms', 'bomCode,targetSku,componentSku,quantity\nFIN-BOM,FIN,COMP,1\n');
  const items = await itemsOf(organizationId, ['COMP', 'FIN', 'SCREW']);
  const bom = (await importRecords().getByNaturalKeys(organizationId, 'bom', ['FIN-BOM'])).get('FIN-BOM')?.record as Bom;
  const id = (sku: string) => items.get(sku)?.record.id ?? '';
  ids = { comp: id('COMP'), fin: id('FIN'), screw: id('SCREW'), bomId: bom.id };

  // The first layout, as older code wrote it: the whole provenance on the pointer and each entry.
  legacy = buildOf('LEGACY', linesOf('legacy', 6, { screws: 1 }), 'F-LEGACY');
  await commit(legacyBuildWrites(organizationId, legacy));
  big = buildOf('BIG', linesOf('big', 3000, { screws: 50 }), 'F-BIG');
  groupSizes = await writeInGroups(big);
  // Large enough for the builds list's line budget to end pages early.
  const large = [buildOf('M1', linesOf('m1', 1200), 'F-M1'), buildOf('M2', linesOf('m2', 1200), 'F-M2'), buildOf('M3', linesOf('m3', 900), 'F-M3')];
  for (const build of large) await writeInGroups(build);
  // Small builds, as the builds import writes them: one transaction each, lines in the pointer.
  const small = Array.from({ length: 4 }, (_, index) => buildOf(`S${index}`, linesOf(`s${index}`, 3, { screws: 1 }), `F-S${index}`));
  for (const build of small) await commit(bomsStore().buildWrites(organizationId, build));
  builds = [legacy, big, ...large, ...small].sort((a, b) => (a.id < b.id ? -1 : 1));
}, 300_000);

describe('a build of 3,000 consumed lines', () => {
  it('is written in transactions of at most 100 actions: 60 slices, 3,000 entries, then the pointer', () => {
    expect(groupSizes).toEqual([...Array(30).fill(100), 61]);
    expect(groupSizes.every((size) => size <= 100)).toBe(true);
    expect(3000 / CONSUMED_SLICE_LINES).toBe(60);
  });

  it('stores O(n) bytes: each entry and the pointer small, each slice bounded; the first layout would have stored n² bytes', async () => {
    const key = { organizationId, id: big.id };
    const [pointer] = await batchGet(tableName('inventory'), [buildPointerEntity.key(key)]);
    const entries = await batchGet(
      tableName('inventory'),
      [...new Set(big.consumed.map((line) => line.sourceStockRecordId))].map((stockRecordId) =>
        buildProvenanceEntity.key({ organizationId, bomId: ids.bomId, stockRecordId, buildId: big.id }),
      ),
    );
    const slices = await batchGet(
      tableName('inventory'),
      Array.from({ length: 60 }, (_, index) => buildConsumedSliceEntity.key({ organizationId, buildId: big.id, index })),
    );

    const sizes = {
      pointer: storedItemBytes(pointer ?? {}),
      entry: Math.max(...entries.map(storedItemBytes)),
      slice: Math.max(...slices.map(storedItemBytes)),
    };
    const total = sizes.pointer + [...entries, ...slices].reduce((sum, item) => sum + storedItemBytes(item), 0);
    // Every entry of the first layout held the same whole provenance: one measured stands for all.
    const [pointerV1, ...entriesV1] = legacyBuildWrites(organizationId, big).map((write) => storedItemBytes(write.item.Put?.Item ?? {}));
    const firstLayout = (pointerV1 ?? 0) + entriesV1.length * (entriesV1[0] ?? 0);
    console.info(
      `3,000 lines: pointer ${sizes.pointer} B, largest entry ${sizes.entry} B, largest slice ${sizes.slice} B, all ${total} B; first layout ${firstLayout} B`,
    );

    expect(entries).toHaveLength(3000);
    expect(slices).toHaveLength(60);
    expect(sizes.pointer).toBeLessThan(1024);
    expect(sizes.entry).toBeLessThan(1024);
    expect(sizes.slice).toBeLessThan(10 * 1024);
    expect(total).toBeLessThan(3000 * 1024);
    // Each of its 3,001 items held all 3,000 lines.
    expect(firstLayout).toBeGreaterThan(100 * total);
  });

  it('a group committed twice fails, and the build is not doubled', async () => {
    const build = buildOf('TWICE', linesOf('twice', 150, { apart: true }), 'F-TWICE');
    const [first, second] = provenance().provenanceWriteGroups(organizationId, build, 100);
    await commit(first ?? []);

    await expect(commit(first ?? [])).rejects.toMatchObject({ status: 409 });
    await commit(second ?? []);

    const listed = await provenance().builds(organizationId, ids.bomId, 'stk_twice1', undefined, 10);
    expect(listed.items).toEqual([build]);
  });

  it('between its transactions, a stock record already written lists it whole, while no trace shows it before its pointer', async () => {
    const build = buildOf('HALF', linesOf('half', 150, { apart: true }), 'F-HALF');
    const [first] = provenance().provenanceWriteGroups(organizationId, build, 100);
    await commit(first ?? []);

    expect((await provenance().builds(organizationId, ids.bomId, 'stk_half1', undefined, 10)).items).toEqual([build]);
    await expect(traces().trace(organizationId, { sku: 'FIN', lot: 'F-HALF', direction: 'backward', depth: 1 })).rejects.toMatchObject({ status: 404 });
  });
});

describe('GET /v1/boms/{id}/builds', () => {
  it('lists every build that drew from the record, each whole, across pages that end within the line budget', async () => {
    const pages = await allPages(50);

    expect(pages.flat()).toEqual(builds);
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) expect(page.length === 1 || linesIn(page) <= BUILDS_PAGE_MAX_CONSUMED_LINES).toBe(true);
    // A page ends where the next build would pass the budget, not sooner.
    for (const [index, page] of pages.slice(0, -1).entries()) {
      expect(linesIn(page) + (pages[index + 1]?.[0]?.consumed.length ?? 0)).toBeGreaterThan(BUILDS_PAGE_MAX_CONSUMED_LINES);
    }
  });

  it('pages of 2 builds give the same builds, in order, none lost or repeated', async () => {
    const pages = await allPages(2);

    expect(pages.flat()).toEqual(builds);
    expect(pages.every((page) => page.length <= 2)).toBe(true);
  });

  it('costs one Query and one BatchGetItem a page', async () => {
    const counter = countDynamoDbRequests(dynamoClient);
    try {
      const page = await provenance().builds(organizationId, ids.bomId, SHARED, undefined, 50);
      expect(counter.operations()).toEqual(['Query', 'BatchGetItem']);
      // Thousands of lines: the page ends only where the next build (at most BIG's 3,050) would pass the 5,000-line budget; ids, and so the order, are random.
      expect(linesIn(page.items)).toBeGreaterThan(BUILDS_PAGE_MAX_CONSUMED_LINES - 3050);
    } finally {
      counter.stop();
    }
  });
});

describe('the lot trace', () => {
  it('backward: the finished lot of the 3,000-line build was made of exactly its lots, a lot drawn from 5 records one node', async () => {
    const trace = await eventuallyTraced(
      () => traces().trace(organizationId, { sku: 'FIN', lot: 'F-BIG', direction: 'backward', depth: 1 }),
      (found) => found.nodeCount > 0,
      30_000,
    );

    expect(trace.nodes.map(({ itemId, lot, quantity, buildId }) => ({ itemId, lot, quantity, buildId }))).toEqual(nodesOf(big, 'backward'));
    expect(trace.nodeCount).toBe(590 + 1);
  });

  it('backward through a build of the first layout', async () => {
    const trace = await eventuallyTraced(
      () => traces().trace(organizationId, { sku: 'FIN', lot: 'F-LEGACY', direction: 'backward', depth: 1 }),
      (found) => found.nodeCount > 0,
    );

    expect(trace.nodes.map(({ itemId, lot, quantity, buildId }) => ({ itemId, lot, quantity, buildId }))).toEqual(nodesOf(legacy, 'backward'));
  });

  it('forward: the shared lot reaches the lot each build made, once per build, whichever the layout', async () => {
    const expected = [...builds].sort((a, b) => (a.builtAt < b.builtAt ? -1 : 1)).flatMap((build) => nodesOf(build, 'forward'));
    const trace = await eventuallyTraced(
      () => traces().trace(organizationId, { sku: 'COMP', lot: lotOf(0), direction: 'forward', depth: 1 }),
      (found) => found.nodeCount === builds.length,
      30_000,
    );

    expect(trace.nodes.map(({ itemId, lot, quantity, buildId }) => ({ itemId, lot, quantity, buildId }))).toEqual(expected);
  });

  it('forward, one build a page: the 3,000-line build drew that lot from 5 records, read as one build', async () => {
    const store = new LotTraceStore(tableName('inventory'));
    const seen: string[] = [];
    let after: string | undefined;
    for (;;) {
      const page = await store.buildsFrom(organizationId, { itemId: ids.comp, lot: lotOf(0) }, 'forward', after, 1);
      seen.push(...page.builds.map(({ build }) => build.id));
      after = page.builds.at(-1)?.after ?? after;
      if (!page.more) break;
    }

    expect(seen).toEqual([...builds].sort((a, b) => (a.builtAt < b.builtAt ? -1 : 1)).map((build) => build.id));
  });

  it('costs, a level: forward one Query per lot; backward one Query, plus one BatchGetItem for the slices of large builds', async () => {
    const counter = countDynamoDbRequests(dynamoClient);
    const store = new LotTraceStore(tableName('inventory'));
    try {
      await store.buildsFrom(organizationId, { itemId: ids.comp, lot: lotOf(0) }, 'forward', undefined, 200);
      const forward = counter.operations();
      counter.reset();
      await store.buildsFrom(organizationId, { itemId: ids.fin, lot: 'F-BIG' }, 'backward', undefined, 200);
      const backwardLarge = counter.operations();
      counter.reset();
      await store.buildsFrom(organizationId, { itemId: ids.fin, lot: 'F-S0' }, 'backward', undefined, 200);

      expect({ forward, backwardLarge, backwardSmall: counter.operations() }).toEqual({
        forward: ['Query'],
        backwardLarge: ['Query', 'BatchGetItem'],
        backwardSmall: ['Query'],
      });
    } finally {
      counter.stop();
    }
  });
});
