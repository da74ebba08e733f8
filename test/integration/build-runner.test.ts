import { describe, expect, it } from 'vitest';
import type { Bom, BomRevision } from '../../lib/domain/boms/records.ts';
import type { Build, BuildPhase } from '../../lib/domain/builds/build.ts';
import { BuildProcessor } from '../../lib/domain/builds/process.ts';
import { BuildRunner, DRAWS_PER_SLICE } from '../../lib/domain/builds/runner.ts';
import { sweepStalledBuilds } from '../../lib/domain/builds/sweep.ts';
import { activeJobItems } from '../../lib/store/active-jobs-index.ts';
import { buildActiveShard, SUBMITTED_BUILD_VERSION } from '../../lib/store/builds-store.ts';
import { SubmitBuildCommand, type BuildInput } from '../../lib/domain/builds/submit.ts';
import type { Item } from '../../lib/domain/inventory/item.ts';
import { stockRecordKey, type StockRecord } from '../../lib/domain/inventory/stock.ts';
import { buildPorts } from '../../lib/store/build-ports.ts';
import { BomsStore } from '../../lib/store/boms-store.ts';
import { StockStore } from '../../lib/store/stock-store.ts';
import type { StoreWrite } from '../../lib/store/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { feedOf, inventoryRecords } from '../support/imports.ts';
import { A1, itemOf } from '../support/stock-world.ts';

/**
 * The build runner on the local stack (docs/boms.md "Builds"): a build of many draws commits in
 * several steps; a crash after any step kind, a redelivered message, or two runners at once end
 * in the same stock, provenance and feed as a build never interrupted; a count that lowers
 * on-hand under what a build holds makes it put back what it consumed and fail.
 */

const ACTOR = { type: 'api-key' as const, id: 'key_build_tests' };
const STORED_AT = '2026-11-01T08:00:00.000Z';
const tables = () => ({ inventory: tableName('inventory'), events: tableName('events'), audit: tableName('audit') });

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

/** `components` items with `stockPerRecord` on hand at A1 each (lot items: `lots` lots of it), a target and an active BOM of one of each per unit. */
async function world(options: { components: number; lots?: number; stockPerRecord: number }): Promise<{ organizationId: string; bom: Bom; components: Item[] }> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const target = itemOf('itm_target', 'TARGET');
  const components = Array.from({ length: options.components }, (_, index) => itemOf(`itm_c${index}`, `C${index}`, index === 0 && options.lots ? { trackingMode: 'lot' } : {}));
  const writes: StoreWrite[] = [...store.createWrites(organizationId, 'item', target), ...store.createWrites(organizationId, 'location', A1)];
  for (const item of components) {
    const lots = item.trackingMode === 'lot' ? Array.from({ length: options.lots ?? 1 }, (_, index) => `L${String(index).padStart(3, '0')}`) : [null];
    writes.push(...store.createWrites(organizationId, 'item', item), stock.itemStockWrite(organizationId, { itemId: item.id, onHand: options.stockPerRecord * lots.length, trackingMode: item.trackingMode }, null, item.trackingMode));
    lots.forEach((lot, index) => {
      const createdAt = new Date(Date.parse(STORED_AT) + index * 1000).toISOString();
      const record: StockRecord = { id: `stk_${item.sku}_${lot ?? 'none'}`, itemId: item.id, sku: item.sku, locationId: A1.id, locationCode: A1.code, lot, onHand: options.stockPerRecord, createdAt, updatedAt: createdAt };
      writes.push(...store.createWrites(organizationId, 'stock-record', record));
    });
  }
  for (let start = 0; start < writes.length; start += 90) await commit(organizationId, writes.slice(start, start + 90));
  const content = { name: 'Target', targetItemId: target.id, status: 'active' as const, outputQuantity: 1, unit: null, notes: null, lines: components.map((item, index) => ({ lineId: `bln_${index}`, itemId: item.id, quantity: 1, unit: null, scrapPercent: 0, notes: null })) };
  const bom: Bom = { id: 'bom_target', code: 'TARGET-BOM', archived: false, revision: { id: 'rev_target', number: 1 }, createdAt: STORED_AT, updatedAt: STORED_AT, ...content };
  const revision: BomRevision = { id: 'rev_target', bomId: bom.id, number: 1, createdAt: STORED_AT, createdBy: ACTOR.id, summary: { added: components.length, removed: 0, changed: 0 }, content };
  await commit(organizationId, new BomsStore(tableName('inventory')).createWrites(organizationId, bom, revision));
  return { organizationId, bom, components };
}

async function submit(organizationId: string, input: Partial<BuildInput> & { quantity: number }): Promise<Build> {
  const command = new SubmitBuildCommand(buildPorts(tables()));
  const body: BuildInput = { buildReference: `B-${input.quantity}-${Math.random()}`, bomCode: 'TARGET-BOM', locationCode: A1.code, outputLot: null, sources: [], ...input };
  return (await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, () => command.submit(organizationId, body, ACTOR))).result;
}

const forever = () => 60_000;

/** Runs a build to its end; `crashAfter` throws once after the first step that commits that phase (the worker died there). */
async function runToEnd(organizationId: string, buildId: string, crashAfter?: BuildPhase): Promise<{ build: Build; crashes: number }> {
  let crashes = 0;
  let armed = crashAfter !== undefined;
  const hook = (phase: BuildPhase) => {
    if (armed && phase === crashAfter) {
      armed = false;
      crashes += 1;
      throw new Error(`injected crash after a step that left the build in ${phase}`);
    }
  };
  const processor = new BuildProcessor(buildPorts(tables()), async () => undefined, hook);
  for (let delivery = 0; delivery < 5; delivery += 1) {
    try {
      if ((await processor.process(organizationId, buildId, forever)) === 'done') break;
    } catch (error) {
      if (!(error instanceof Error) || !error.message.startsWith('injected crash')) throw error;
    }
  }
  const stored = await buildPorts(tables()).builds.get(organizationId, buildId);
  if (!stored) throw new Error('build gone');
  return { build: stored.build, crashes };
}

/** On-hand and reserved of every stock record, by sku and lot. */
async function stockState(organizationId: string, items: Item[]): Promise<Record<string, [number, number]>> {
  const ports = buildPorts(tables());
  const keys = items.flatMap((item) => (item.trackingMode === 'lot' ? Array.from({ length: 40 }, (_, index) => stockRecordKey(item.id, A1.id, `L${String(index).padStart(3, '0')}`)) : [stockRecordKey(item.id, A1.id, null)]));
  const found = await ports.stock.getByNaturalKeys(organizationId, 'stock-record', [...keys, stockRecordKey('itm_target', A1.id, null)]);
  return Object.fromEntries([...found.values()].map(({ record }) => { const stock = record as StockRecord; return [`${stock.sku}/${stock.lot ?? ''}`, [stock.onHand, stock.reserved ?? 0]]; }).sort());
}

/** The feed without what differs between two runs (ids, times): types, skus and quantities in commit order. */
async function feedShape(organizationId: string): Promise<string[]> {
  return (await feedOf(organizationId)).map((event) => {
    const data = event.data as { movement?: { type: string; sku: string; quantity: number }; sku?: string; delta?: number; reserved?: number };
    return data.movement ? `${event.type}:${data.movement.type}:${data.movement.sku}:${data.movement.quantity}` : `${event.type}:${data.sku ?? ''}:${data.delta ?? ''}:${data.reserved ?? ''}`;
  });
}

describe('build runner', () => {
  it('builds 100 lines (provenance of two groups) in several transactions of at most 100 actions, and a crash after any step kind or a redelivery ends the same', async () => {
    const reference = await world({ components: 100, lots: 8, stockPerRecord: 5 });
    const first = await submit(reference.organizationId, { quantity: 4 });
    const plain = await runToEnd(reference.organizationId, first.id);
    expect(plain.build).toMatchObject({ status: 'succeeded', failure: null });
    expect(plain.build.progress.slices).toBeGreaterThan(2);
    const expectedStock = await stockState(reference.organizationId, reference.components);
    expect(expectedStock['TARGET/']).toEqual([4, 0]);
    expect(expectedStock['C1/']).toEqual([1, 0]);
    expect(expectedStock['C0/L000']).toEqual([1, 0]);
    const expectedFeed = await feedShape(reference.organizationId);

    for (const phase of ['reserve', 'consume', 'produce', 'record', 'done'] as const) {
      const crashed = await world({ components: 100, lots: 8, stockPerRecord: 5 });
      const build = await submit(crashed.organizationId, { quantity: 4 });
      const run = await runToEnd(crashed.organizationId, build.id, phase);
      expect(run.crashes, phase).toBe(1);
      expect(run.build.status, phase).toBe('succeeded');
      expect(await stockState(crashed.organizationId, crashed.components), phase).toEqual(expectedStock);
      expect(await feedShape(crashed.organizationId), phase).toEqual(expectedFeed);
    }
  }, 240_000);

  it('two runners of one build at once apply every step once', async () => {
    const { organizationId, components } = await world({ components: 30, stockPerRecord: 3 });
    const build = await submit(organizationId, { quantity: 2 });
    const processor = () => new BuildProcessor(buildPorts(tables()), async () => undefined);
    await Promise.all([processor().process(organizationId, build.id, forever), processor().process(organizationId, build.id, forever)]);
    const stock = await stockState(organizationId, components);
    expect(stock['TARGET/']).toEqual([2, 0]);
    for (const item of components) expect(stock[`${item.sku}/`]).toEqual([1, 0]);
    const consumptions = (await feedShape(organizationId)).filter((entry) => entry.startsWith('movement.created:consumption'));
    expect(consumptions).toHaveLength(30);
  }, 120_000);

  it('a runner that read the output absent while another produced it reads again and ends the build once', async () => {
    const { organizationId, components } = await world({ components: 3, stockPerRecord: 3 });
    const build = await submit(organizationId, { quantity: 2 });
    const targetKey = stockRecordKey('itm_target', A1.id, null);
    const ports = buildPorts(tables());
    let overtaken = false;
    // Runner A's read of the output record returns absent; before A commits, runner B runs the whole build.
    const overtake = async (keys: Iterable<string>, found: Map<string, unknown>) => {
      if (overtaken || ![...keys].includes(targetKey) || found.has(targetKey)) return;
      overtaken = true;
      expect((await runToEnd(organizationId, build.id)).build.status).toBe('succeeded');
    };
    const stock: typeof ports.stock = {
      ...ports.stock,
      getByNaturalKeys: async (...args) => {
        const found = await ports.stock.getByNaturalKeys(...args);
        if (args[1] === 'stock-record') await overtake(args[2], found);
        return found;
      },
      recordsAndTotals: async (...args) => {
        const read = ports.stock.recordsAndTotals;
        if (!read) throw new Error('the build ports read records and totals together');
        const found = await read(...args);
        await overtake(args[1], found.records);
        return found;
      },
    };
    await new BuildProcessor({ ...ports, stock }, async () => undefined).process(organizationId, build.id, forever);
    expect(overtaken).toBe(true);
    const state = await stockState(organizationId, components);
    expect(state['TARGET/']).toEqual([2, 0]);
    for (const item of components) expect(state[`${item.sku}/`]).toEqual([1, 0]);
    expect((await feedShape(organizationId)).filter((entry) => entry.startsWith('movement.created:production'))).toHaveLength(1);
  }, 60_000);

  it('reads a BOM revision once for the builds of one runner, and a build it was handed not at all first', async () => {
    const { organizationId } = await world({ components: 2, stockPerRecord: 10 });
    const ports = buildPorts(tables());
    const reads = { revisions: 0, builds: 0 };
    const counted = {
      ...ports,
      // The stores are class instances: their other methods stay on the prototype.
      boms: Object.assign(Object.create(ports.boms) as typeof ports.boms, { revision: (...args: Parameters<typeof ports.boms.revision>) => ((reads.revisions += 1), ports.boms.revision(...args)) }),
      builds: Object.assign(Object.create(ports.builds) as typeof ports.builds, { get: (...args: Parameters<typeof ports.builds.get>) => ((reads.builds += 1), ports.builds.get(...args)) }),
    };
    const runner = new BuildRunner(counted);
    const first = await submit(organizationId, { quantity: 1 });
    const second = await submit(organizationId, { quantity: 2 });
    expect(await runner.run(organizationId, first.id, forever)).toMatchObject({ outcome: 'done', build: { status: 'succeeded' } });
    expect(await runner.run(organizationId, second.id, forever, { build: second, version: SUBMITTED_BUILD_VERSION })).toMatchObject({ outcome: 'done', build: { status: 'succeeded', quantity: 2 } });
    expect(reads).toEqual({ revisions: 1, builds: 1 });
    expect((await ports.builds.get(organizationId, second.id))?.build).toMatchObject({ status: 'succeeded' });
  }, 60_000);

  it('a count below what a build holds makes it put back what it consumed, let go of the rest, and fail', async () => {
    const { organizationId, components } = await world({ components: 30, stockPerRecord: 3 });
    const build = await submit(organizationId, { quantity: 2 });
    const ports = buildPorts(tables());
    let counted = false;
    // After the first slice (lines 0..23: DRAWS_PER_SLICE) is consumed, C27 (held in the second slice) is counted at 1.
    const countAfterFirstConsumption = async (phase: BuildPhase, progress: { consumed: number }) => {
      if (counted || phase !== 'consume' || progress.consumed !== 1) return;
      counted = true;
      const key = stockRecordKey('itm_c27', A1.id, null);
      const stored = (await ports.stock.getByNaturalKeys(organizationId, 'stock-record', [key])).get(key);
      if (!stored) throw new Error('no C27');
      await commit(organizationId, inventoryRecords().updateWrites(organizationId, 'stock-record', { ...(stored.record as StockRecord), onHand: 1 }, stored.version));
    };
    await new BuildProcessor(ports, async () => undefined, countAfterFirstConsumption).process(organizationId, build.id, forever);
    const ended = (await ports.builds.get(organizationId, build.id))?.build;
    expect(ended).toMatchObject({ status: 'failed', failure: { code: 'insufficient-stock', lines: [{ line: 27, sku: 'C27', needed: 2, available: 1 }] } });
    const stock = await stockState(organizationId, components);
    for (const item of components) expect(stock[`${item.sku}/`], item.sku).toEqual([item.sku === 'C27' ? 1 : 3, 0]);
    expect(stock['TARGET/']).toBeUndefined();
    const movements = (await feedShape(organizationId)).filter((entry) => entry.startsWith('movement.created'));
    expect(movements.filter((entry) => entry.includes(':consumption:'))).toHaveLength(DRAWS_PER_SLICE);
    expect(movements.filter((entry) => entry.includes(':consumption-reversal:'))).toHaveLength(DRAWS_PER_SLICE);
  }, 60_000);

  it('two builds racing for the same components: one succeeds, the other fails with nothing drawn', async () => {
    const { organizationId, components } = await world({ components: 30, stockPerRecord: 2 });
    const [first, second] = [await submit(organizationId, { quantity: 2 }), await submit(organizationId, { quantity: 2 })];
    const processor = () => new BuildProcessor(buildPorts(tables()), async () => undefined);
    await Promise.all([processor().process(organizationId, first.id, forever), processor().process(organizationId, second.id, forever)]);
    const ports = buildPorts(tables());
    const statuses = await Promise.all([first, second].map(async (build) => (await ports.builds.get(organizationId, build.id))?.build.status));
    expect([...statuses].sort()).toEqual(['failed', 'succeeded']);
    const stock = await stockState(organizationId, components);
    expect(stock['TARGET/']).toEqual([2, 0]);
    for (const item of components) expect(stock[`${item.sku}/`], item.sku).toEqual([0, 0]);
  }, 60_000);

  it('fails a build short at its last line with nothing held or consumed', async () => {
    const { organizationId, components } = await world({ components: 40, stockPerRecord: 2 });
    const before = await stockState(organizationId, components);
    // 40 lines of 2 each: 3 units need 3 of each; every line is short.
    const run = await runToEnd(organizationId, (await submit(organizationId, { quantity: 3 })).id);
    expect(run.build.status).toBe('failed');
    expect(run.build.failure?.code).toBe('insufficient-stock');
    expect(run.build.failure?.lines).toHaveLength(40);
    expect(await stockState(organizationId, components)).toEqual(before);
  }, 60_000);

  it('the sweep sends again a build whose message was lost, and leaves builds in progress or done alone', async () => {
    const { organizationId } = await world({ components: 2, stockPerRecord: 5 });
    const lost = await submit(organizationId, { quantity: 1 });
    const running = await submit(organizationId, { quantity: 1 });
    const done = await submit(organizationId, { quantity: 1 });
    await runToEnd(organizationId, done.id);
    const active = (await activeJobItems(tableName('inventory'), buildActiveShard)).map((item) => item.build as Build).filter((build) => build.organizationId === organizationId);
    // Done builds leave the active-jobs index.
    expect(active.map((build) => build.id).sort()).toEqual([lost.id, running.id].sort());
    const sent: string[] = [];
    const now = Date.parse(lost.updatedAt) + 3 * 60 * 1000;
    const asIfRunningRecently = active.map((build) => (build.id === running.id ? { ...build, updatedAt: new Date(now - 10_000).toISOString() } : build));
    const swept = await sweepStalledBuilds({ builds: asIfRunningRecently, now, stalledAfterMs: 2 * 60 * 1000, send: async (message) => void sent.push(message.jobId), onError: (_build, error) => { throw error; } });
    expect(swept.resent).toBe(1);
    expect(sent).toEqual([lost.id]);
    // Its message runs it from where it stands.
    expect((await runToEnd(organizationId, lost.id)).build.status).toBe('succeeded');
  }, 60_000);
});
