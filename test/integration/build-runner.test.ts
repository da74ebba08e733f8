import { beforeAll, describe, expect, it } from 'vitest';
import type { Bom, BomRevision } from '../../lib/boms/domain/records.ts';
import type { Build, BuildFailure, BuildPhase } from '../../lib/builds/domain/build.ts';
import { BuildProcessor } from '../../lib/builds/domain/process.ts';
import { BuildRunner, DRAWS_PER_SLICE } from '../../lib/builds/domain/runner.ts';
import { sweepStalledBuilds } from '../../lib/builds/domain/sweep.ts';
import { createJobQueueHandler } from '../../lib/platform/jobs/job-queue-handler.ts';
import { activeJobItems } from '../../lib/platform/dynamo/active-jobs-index.ts';
import { BuildProvenanceStore } from '../../lib/boms/store/build-provenance-store.ts';
import { movementsOf } from '../../lib/inventory/store/movements-store.ts';
import { BUILD_QUEUE } from '../../lib/platform/storage/tables.ts';
import { SUBMITTED_BUILD_VERSION } from '../../lib/builds/store/builds-store.ts';
import { buildIndexKeys } from '../../lib/builds/store/entities.ts';
import { SubmitBuildCommand, type BuildInput } from '../../lib/builds/domain/submit.ts';
import type { Item } from '../../lib/inventory/domain/item.ts';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import { buildPorts } from '../../lib/builds/store/build-ports.ts';
import { BomsStore } from '../../lib/boms/store/boms-store.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { feedOf, inventoryRecords, jobMessage, sqsEvent, sqsRecord } from '../support/imports.ts';
import { lambdaContext } from '../../local/lambda-event.ts';
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
async function world(options: {
  components: number;
  lots?: number;
  stockPerRecord: number;
}): Promise<{ organizationId: string; bom: Bom; components: Item[] }> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const target = itemOf('itm_target', 'TARGET');
  const components = Array.from({ length: options.components }, (_, index) =>
    itemOf(`itm_c${index}`, `C${index}`, index === 0 && options.lots ? { trackingMode: 'lot' } : {}),
  );
  const writes: StoreWrite[] = [...store.createWrites(organizationId, 'item', target), ...store.createWrites(organizationId, 'location', A1)];
  for (const item of components) {
    const lots = item.trackingMode === 'lot' ? Array.from({ length: options.lots ?? 1 }, (_, index) => `L${String(index).padStart(3, '0')}`) : [null];
    writes.push(
      ...store.createWrites(organizationId, 'item', item),
      stock.itemStockWrite(
        organizationId,
        { itemId: item.id, onHand: options.stockPerRecord * lots.length, trackingMode: item.trackingMode },
        null,
        item.trackingMode,
      ),
    );
    lots.forEach((lot, index) => {
      const createdAt = new Date(Date.parse(STORED_AT) + index * 1000).toISOString();
      const record: StockRecord = {
        id: `stk_${item.sku}_${lot ?? 'none'}`,
        itemId: item.id,
        sku: item.sku,
        locationId: A1.id,
        locationCode: A1.code,
        lot,
        onHand: options.stockPerRecord,
        createdAt,
        updatedAt: createdAt,
      };
      writes.push(...store.createWrites(organizationId, 'stock-record', record));
    });
  }
  for (let start = 0; start < writes.length; start += 90) await commit(organizationId, writes.slice(start, start + 90));
  const content = {
    name: 'Target',
    targetItemId: target.id,
    status: 'active' as const,
    outputQuantity: 1,
    unit: null,
    notes: null,
    lines: components.map((item, index) => ({ lineId: `bln_${index}`, itemId: item.id, quantity: 1, unit: null, scrapPercent: 0, notes: null })),
  };
  const bom: Bom = {
    id: 'bom_target',
    code: 'TARGET-BOM',
    archived: false,
    revision: { id: 'rev_target', number: 1 },
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
    ...content,
  };
  const revision: BomRevision = {
    id: 'rev_target',
    bomId: bom.id,
    number: 1,
    createdAt: STORED_AT,
    createdBy: ACTOR.id,
    summary: { added: components.length, removed: 0, changed: 0 },
    content,
  };
  await commit(organizationId, new BomsStore(tableName('inventory')).createWrites(organizationId, bom, revision));
  return { organizationId, bom, components };
}

async function submit(organizationId: string, input: Partial<BuildInput> & { quantity: number }): Promise<Build> {
  const command = new SubmitBuildCommand(buildPorts(tables()));
  const body: BuildInput = {
    buildReference: `B-${input.quantity}-${Math.random()}`,
    bomCode: 'TARGET-BOM',
    locationCode: A1.code,
    outputLot: null,
    sources: [],
    ...input,
  };
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
  const keys = items.flatMap((item) =>
    item.trackingMode === 'lot'
      ? Array.from({ length: 40 }, (_, index) => stockRecordKey(item.id, A1.id, `L${String(index).padStart(3, '0')}`))
      : [stockRecordKey(item.id, A1.id, null)],
  );
  const found = await ports.stock.getByNaturalKeys(organizationId, 'stock-record', [...keys, stockRecordKey('itm_target', A1.id, null)]);
  return Object.fromEntries(
    [...found.values()]
      .map(({ record }) => {
        const stock = record as StockRecord;
        return [`${stock.sku}/${stock.lot ?? ''}`, [stock.onHand, stock.reserved ?? 0]];
      })
      .sort(),
  );
}

/** The feed without what differs between two runs (ids, times): types, skus and quantities in commit order. */
async function feedShape(organizationId: string): Promise<string[]> {
  return (await feedOf(organizationId)).map((event) => {
    const data = event.data as { movement?: { type: string; sku: string; quantity: number }; sku?: string; delta?: number; reserved?: number };
    return data.movement
      ? `${event.type}:${data.movement.type}:${data.movement.sku}:${data.movement.quantity}`
      : `${event.type}:${data.sku ?? ''}:${data.delta ?? ''}:${data.reserved ?? ''}`;
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
      boms: Object.assign(Object.create(ports.boms) as typeof ports.boms, {
        revision: (...args: Parameters<typeof ports.boms.revision>) => ((reads.revisions += 1), ports.boms.revision(...args)),
      }),
      builds: Object.assign(Object.create(ports.builds) as typeof ports.builds, {
        get: (...args: Parameters<typeof ports.builds.get>) => ((reads.builds += 1), ports.builds.get(...args)),
      }),
    };
    const runner = new BuildRunner(counted);
    const first = await submit(organizationId, { quantity: 1 });
    const second = await submit(organizationId, { quantity: 2 });
    expect(await runner.run(organizationId, first.id, forever)).toMatchObject({ outcome: 'done', build: { status: 'succeeded' } });
    expect(await runner.run(organizationId, second.id, forever, { build: second, version: SUBMITTED_BUILD_VERSION })).toMatchObject({
      outcome: 'done',
      build: { status: 'succeeded', quantity: 2 },
    });
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
      await commit(
        organizationId,
        inventoryRecords().updateWrites(organizationId, 'stock-record', { ...(stored.record as StockRecord), onHand: 1 }, stored.version),
      );
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
    const active = (await activeJobItems(tableName('inventory'), buildIndexKeys.activeShard))
      .map((item) => item.build as Build)
      .filter((build) => build.organizationId === organizationId);
    // Done builds leave the active-jobs index.
    expect(active.map((build) => build.id).sort()).toEqual([lost.id, running.id].sort());
    const sent: string[] = [];
    const now = Date.parse(lost.updatedAt) + 3 * 60 * 1000;
    const asIfRunningRecently = active.map((build) => (build.id === running.id ? { ...build, updatedAt: new Date(now - 10_000).toISOString() } : build));
    const swept = await sweepStalledBuilds({
      builds: asIfRunningRecently,
      now,
      stalledAfterMs: 2 * 60 * 1000,
      send: async (message) => void sent.push(message.jobId),
      onError: (_build, error) => {
        throw error;
      },
    });
    expect(swept.resent).toBe(1);
    expect(sent).toEqual([lost.id]);
    // Its message runs it from where it stands.
    expect((await runToEnd(organizationId, lost.id)).build.status).toBe('succeeded');
  }, 60_000);
});

/**
 * Every delivery of a build's message fails once the build reached `phase` (its `occurrence`-th
 * step leaving it there): the first one dies right after that step, the others at once, and the
 * last allowed receive marks the build failed through the worker's batch handling. Then the
 * worker works again: the messages the build was handed on with, and the build sweep, run it on.
 */
async function failLastDeliveryAt(organizationId: string, buildId: string, phase: BuildPhase, occurrence: number): Promise<Build> {
  const ports = buildPorts(tables());
  const sent: string[] = [];
  let seen = 0;
  let down = false;
  const hook = (committed: BuildPhase) => {
    if (down || committed !== phase || ++seen !== occurrence) return;
    down = true;
    throw new Error(`injected failure after a step that left the build in ${committed}`);
  };
  const real = new BuildProcessor(ports, async (message) => void sent.push(message.jobId), hook);
  const processor = {
    process: (...args: Parameters<typeof real.process>) =>
      down ? Promise.reject(new Error('injected failure: the worker keeps failing')) : real.process(...args),
    fail: (build: Build, failure: BuildFailure) => real.fail(build, failure),
  };
  const handler = createJobQueueHandler({
    processor,
    jobs: { get: async (organization, id) => (await ports.builds.get(organization, id))?.build },
    resend: async (message) => void sent.push(message.jobId),
    maxReceiveCount: BUILD_QUEUE.maxReceiveCount,
    flow: 'build',
    lastReceiveFailure: { code: 'processing-error', message: 'injected: every delivery failed', lines: [] },
    countMessages: () => undefined,
  });
  const deliver = (receiveCount: number) =>
    handler(
      sqsEvent(sqsRecord(jobMessage(organizationId, buildId), { receiveCount })),
      lambdaContext('processBuildJobs', `inv-${receiveCount}`, BUILD_QUEUE.workerTimeoutSeconds * 1000),
    );
  for (let receive = 1; receive <= BUILD_QUEUE.maxReceiveCount; receive += 1) {
    const response = await deliver(receive);
    // Every receive failed, up to a build already done (a crash after its last step is its last failure).
    if (seen < occurrence || phase !== 'done') expect(response.batchItemFailures, `receive ${receive}`).toHaveLength(1);
  }
  expect(seen, 'the failure was injected').toBe(occurrence);
  down = false;
  for (let round = 0; round < 20; round += 1) {
    if (sent.length === 0) {
      // Nothing handed on: the sweep finds the build if it is not done.
      const active = (await activeJobItems(tableName('inventory'), buildIndexKeys.activeShard))
        .map((item) => item.build as Build)
        .filter((build) => build.id === buildId);
      await sweepStalledBuilds({
        builds: active,
        now: Date.now() + 10 * 60 * 1000,
        stalledAfterMs: 2 * 60 * 1000,
        send: async (message) => void sent.push(message.jobId),
        onError: (_build, error) => {
          throw error;
        },
      });
      if (sent.length === 0) break;
    }
    sent.shift();
    expect((await deliver(1)).batchItemFailures).toEqual([]);
  }
  const stored = await ports.builds.get(organizationId, buildId);
  if (!stored) throw new Error('build gone');
  return stored.build;
}

interface Outcome {
  stock: Record<string, [number, number]>;
  totals: Record<string, [number, number]>;
  ledger: Record<string, string[]>;
  feed: string[];
  provenance: number;
  claimedBy: string | null | undefined;
}

/** What a build leaves in storage: stock records, item totals, every record's ledger (types and quantities), the feed, the provenance under C1's record, and its reference's claim. */
async function outcomeOf(organizationId: string, items: Item[], buildReference: string): Promise<Outcome> {
  const ports = buildPorts(tables());
  const stock = await stockState(organizationId, items);
  const totals = await new StockStore(tableName('inventory')).getItemStock(organizationId, [...items.map((item) => item.id), 'itm_target']);
  const records = await ports.stock.getByNaturalKeys(organizationId, 'stock-record', [
    ...items.map((item) => stockRecordKey(item.id, A1.id, null)),
    stockRecordKey('itm_target', A1.id, null),
  ]);
  const ledger: Record<string, string[]> = {};
  for (const { record } of records.values()) {
    const stockRecord = record as StockRecord;
    ledger[stockRecord.sku] = (await movementsOf(tableName('inventory'), organizationId, stockRecord.id)).map(
      (movement) => `${movement.type}:${movement.quantity}`,
    );
  }
  const provenance = await new BuildProvenanceStore(tableName('inventory')).builds(organizationId, 'bom_target', 'stk_C1_none', undefined, 50);
  return {
    stock,
    totals: Object.fromEntries([...totals.values()].map(({ record }) => [record.itemId, [record.onHand, record.reserved ?? 0] as [number, number]]).sort()),
    ledger,
    feed: await feedShape(organizationId),
    provenance: provenance.items.length,
    claimedBy: await ports.builds.idOfReference(organizationId, buildReference),
  };
}

describe('a build whose last delivery fails', () => {
  const size = { components: 90, stockPerRecord: 5 };
  let uninterrupted: Outcome;

  beforeAll(async () => {
    const { organizationId, components } = await world(size);
    const build = await submit(organizationId, { quantity: 4 });
    const { build: ended } = await runToEnd(organizationId, build.id);
    // Several slices, and a provenance of more than one group: every phase is a step of its own.
    expect(ended).toMatchObject({ status: 'succeeded', progress: { slices: 4, recorded: 2 } });
    uninterrupted = await outcomeOf(organizationId, components, build.buildReference);
  }, 120_000);

  // Before the output exists a failed build unwinds and ends as if never built; from then on it records to its end.
  it.each([
    { phase: 'reserve', occurrence: 1, ends: 'no build' },
    { phase: 'consume', occurrence: 1, ends: 'no build' },
    { phase: 'consume', occurrence: 2, ends: 'no build' },
    { phase: 'produce', occurrence: 1, ends: 'no build' },
    { phase: 'record', occurrence: 1, ends: 'built' },
    { phase: 'record', occurrence: 2, ends: 'built' },
    { phase: 'done', occurrence: 1, ends: 'built' },
  ] as const)(
    'failing from step $occurrence that left it in $phase ends as $ends',
    async ({ phase, occurrence, ends }) => {
      const { organizationId, components } = await world(size);
      const build = await submit(organizationId, { quantity: 4 });
      const before = await outcomeOf(organizationId, components, build.buildReference);

      const ended = await failLastDeliveryAt(organizationId, build.id, phase, occurrence);

      const after = await outcomeOf(organizationId, components, build.buildReference);
      if (ends === 'built') {
        expect(after).toEqual({ ...uninterrupted, claimedBy: build.id });
        expect(ended).toMatchObject({ status: 'succeeded', failure: null, progress: { phase: 'done' } });
        return;
      }
      expect(ended).toMatchObject({ status: 'failed', failure: { code: 'processing-error' }, progress: { phase: 'done' } });
      // No build at all: stock and totals as before, every consumption put back, no output, no provenance, the reference free.
      expect({ stock: after.stock, totals: after.totals, provenance: after.provenance, claimedBy: after.claimedBy }).toEqual({
        stock: before.stock,
        totals: before.totals,
        provenance: 0,
        claimedBy: undefined,
      });
      expect(after.stock['TARGET/']).toBeUndefined();
      expect(after.feed.filter((entry) => entry.startsWith('movement.created:production'))).toEqual([]);
      for (const item of components) {
        const moved = after.ledger[item.sku] ?? [];
        expect(
          moved.every((entry) => /^consumption(-reversal)?:/.test(entry)),
          item.sku,
        ).toBe(true);
        expect(
          moved.reduce((sum, entry) => sum + Number(entry.split(':')[1]), 0),
          item.sku,
        ).toBe(0);
      }
      const consumed = after.feed.filter((entry) => entry.startsWith('movement.created:consumption:')).length;
      expect(after.feed.filter((entry) => entry.startsWith('movement.created:consumption-reversal:')).length).toBe(consumed);
    },
    120_000,
  );
});
