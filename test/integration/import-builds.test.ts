import { describe, expect, it } from 'vitest';
import type { BuildPhase } from '../../lib/builds/domain/build.ts';
import { buildPorts } from '../../lib/builds/store/build-ports.ts';
import { importBuilds } from '../../lib/imports/store/import-builds.ts';
import { uniqueOrganization } from '../support/api.ts';
import {
  commitQueuedJob,
  csvOf,
  feedOf,
  importJobsStore,
  inProcessProcessor,
  itemsOf,
  locationsOf,
  runImportInProcess,
  storedJob,
  storeTables,
} from '../support/imports.ts';
import { stockAt } from '../support/stock.ts';

/**
 * The `builds` import kind through the build runner (docs/boms.md "Builds"): each build is
 * submitted as a build job and run to its end by the import worker; a crash after any step kind
 * it takes (test/integration/build-runner.test.ts crashes a build whose provenance takes a step
 * of its own) ends, on the next delivery, with the same stock, feed and row counts as an uninterrupted run; a
 * short build fails whole naming each short line, and its reference can be imported again; a dry
 * run decides a build of any size in its chunk and moves nothing.
 */

const COMPONENTS = 40;
const componentSkus = Array.from({ length: COMPONENTS }, (_, index) => `C-${String(index).padStart(2, '0')}`);

/** KIT and 40 components, `stock` of each at A1, and KIT-BOM of one of each per kit. */
async function world(stock: (sku: string) => number = () => 10): Promise<string> {
  const organizationId = uniqueOrganization();
  await runImportInProcess(organizationId, 'items', csvOf(['sku', 'name'], [['KIT', 'Kit'], ...componentSkus.map((sku) => [sku, sku])]));
  await runImportInProcess(organizationId, 'locations', csvOf(['code', 'name'], [['A1', 'Bin A1']]));
  const received = componentSkus.filter((sku) => stock(sku) > 0);
  if (received.length > 0)
    await runImportInProcess(
      organizationId,
      'po-receipts',
      csvOf(
        ['poNumber', 'sku', 'locationCode', 'quantity'],
        received.map((sku) => ['PO-1', sku, 'A1', String(stock(sku))]),
      ),
    );
  await runImportInProcess(
    organizationId,
    'boms',
    csvOf(
      ['bomCode', 'targetSku', 'componentSku', 'quantity'],
      [...componentSkus.map((sku) => ['KIT-BOM', 'KIT', sku, '1']), ...componentSkus.slice(0, 3).map((sku) => ['SMALL-BOM', 'KIT', sku, '1'])],
    ),
  );
  return organizationId;
}

const buildsFile = (...rows: Array<[reference: string, quantity: string]>) =>
  csvOf(
    ['buildReference', 'bomCode', 'quantity', 'locationCode'],
    rows.map(([reference, quantity]) => [reference, 'KIT-BOM', quantity, 'A1']),
  );
const smallBuildsFile = (count: number) =>
  csvOf(
    ['buildReference', 'bomCode', 'quantity', 'locationCode'],
    Array.from({ length: count }, (_, index) => [`S-${index}`, 'SMALL-BOM', '1', 'A1']),
  );

async function onHandBySku(organizationId: string): Promise<Record<string, number>> {
  const items = await itemsOf(organizationId, ['KIT', ...componentSkus]);
  const a1 = (await locationsOf(organizationId, ['A1'])).get('A1')?.record.id ?? '';
  const entries = await Promise.all(
    [...items.values()].map(
      async ({ record }) => [record.sku, (await stockAt(organizationId, record.id, a1, null).catch(() => ({ onHand: 0 }))).onHand] as const,
    ),
  );
  return Object.fromEntries(entries.sort());
}

/** The feed since `from` without ids and times: types, skus and quantities in commit order. */
async function feedShape(organizationId: string, from: number): Promise<string[]> {
  return (await feedOf(organizationId)).slice(from).map((event) => {
    const data = event.data as { movement?: { type: string; sku: string; quantity: number }; sku?: string; delta?: number; reserved?: number };
    return data.movement
      ? `${event.type}:${data.movement.type}:${data.movement.sku}:${data.movement.quantity}`
      : `${event.type}:${data.sku ?? ''}:${data.delta ?? ''}:${data.reserved ?? ''}`;
  });
}

/** Runs a builds import; `crashAfter` kills the worker once, right after the first build step that commits that phase; the next delivery goes on. */
async function importBuildsFile(organizationId: string, file: string, crashAfter?: BuildPhase) {
  const { job } = await commitQueuedJob(organizationId, { kind: 'builds', file, duplicateStrategy: 'fail', dryRun: false });
  let armed = crashAfter !== undefined;
  let crashes = 0;
  const hook = (phase: BuildPhase) => {
    if (!armed || phase !== crashAfter) return;
    armed = false;
    crashes += 1;
    throw new Error('injected crash');
  };
  const processor = inProcessProcessor({ builds: importBuilds(buildPorts(storeTables()), hook) });
  for (let delivery = 0; delivery < 3; delivery += 1) {
    const outcome = await processor
      .process(organizationId, job.id, () => 600_000)
      .catch((error: Error) => {
        if (error.message !== 'injected crash') throw error;
        return 'crashed';
      });
    if (outcome === 'finished') break;
  }
  return { job: await storedJob(organizationId, job.id), crashes };
}

/** Imports `file` into a fresh world once per phase, crashing after that phase once: each ends with every row created, `expectedStock` and `expectedFeed`. */
async function expectCrashesEndTheSame(
  file: string,
  phases: readonly BuildPhase[],
  rows: number,
  expectedStock: Record<string, number>,
  expectedFeed: string[],
): Promise<void> {
  for (const phase of phases) {
    const organizationId = await world();
    const from = (await feedOf(organizationId)).length;
    const run = await importBuildsFile(organizationId, file, phase);
    expect(run.crashes, phase).toBe(1);
    expect(run.job, phase).toMatchObject({ status: 'succeeded', counts: { totalRows: rows, processedRows: rows, created: rows, failed: 0 } });
    expect(await onHandBySku(organizationId), phase).toEqual(expectedStock);
    expect(await feedShape(organizationId, from), phase).toEqual(expectedFeed);
  }
}

describe('builds imported through the build runner', () => {
  it('builds 40 lines in several steps; a crash after any step kind ends, on redelivery, in the same stock, feed and counts', async () => {
    const file = buildsFile(['B-1', '3'], ['B-2', '2']);
    const reference = await world();
    const feedFrom = (await feedOf(reference)).length;
    const plain = await importBuildsFile(reference, file);
    expect(plain.job).toMatchObject({ status: 'succeeded', counts: { created: 2, failed: 0 } });
    const expectedStock = await onHandBySku(reference);
    expect(expectedStock.KIT).toBe(5);
    expect(expectedStock['C-00']).toBe(5);
    const expectedFeed = await feedShape(reference, feedFrom);
    expect(expectedFeed.filter((entry) => entry.startsWith('movement.created:consumption'))).toHaveLength(2 * COMPONENTS);

    // A build of 40 draws: two slices held, then consumed; its provenance (one group) is recorded with its output.
    await expectCrashesEndTheSame(file, ['reserve', 'consume', 'produce', 'done'], 2, expectedStock, expectedFeed);
  }, 240_000);

  it('small builds take one transaction to hold and consume and one to produce and record; a crash after either ends the same', async () => {
    const reference = await world();
    const feedFrom = (await feedOf(reference)).length;
    const plain = await importBuildsFile(reference, smallBuildsFile(4));
    expect(plain.job).toMatchObject({ status: 'succeeded', counts: { created: 4, failed: 0 } });
    const expectedStock = await onHandBySku(reference);
    expect([expectedStock.KIT, expectedStock['C-00'], expectedStock['C-03']]).toEqual([4, 6, 10]);
    const expectedFeed = await feedShape(reference, feedFrom);

    await expectCrashesEndTheSame(smallBuildsFile(4), ['produce', 'done'], 4, expectedStock, expectedFeed);
  }, 120_000);

  it('a short build fails whole, naming each short line, nothing consumed; once stock arrives its reference imports again', async () => {
    const organizationId = await world((sku) => (sku === 'C-07' || sku === 'C-31' ? 1 : 10));
    const before = await onHandBySku(organizationId);

    const short = await importBuildsFile(organizationId, buildsFile(['B-SHORT', '2']));
    const errors = await importJobsStore().listRowErrors(organizationId, short.job.id, undefined, 10);
    await runImportInProcess(
      organizationId,
      'po-receipts',
      csvOf(
        ['poNumber', 'sku', 'locationCode', 'quantity'],
        [
          ['PO-2', 'C-07', 'A1', '1'],
          ['PO-2', 'C-31', 'A1', '1'],
        ],
      ),
    );
    const again = await importBuildsFile(organizationId, buildsFile(['B-SHORT', '2']));

    expect(short.job).toMatchObject({ status: 'completed_with_errors', counts: { created: 0, failed: 1 } });
    expect(errors.errors).toEqual([
      expect.objectContaining({
        rowNumber: 1,
        column: 'quantity',
        code: 'insufficient-stock',
        message: expect.stringMatching(/Component "C-07" has 1 available.*2 is more than that.*Component "C-31" has 1 available.*Nothing was consumed/),
      }),
    ]);
    expect(again.job).toMatchObject({ status: 'succeeded', counts: { created: 1, failed: 0 } });
    const after = await onHandBySku(organizationId);
    expect(after.KIT).toBe(2);
    expect(after['C-00']).toBe((before['C-00'] ?? 0) - 2);
    expect(after['C-07']).toBe(0);
  }, 120_000);

  it('a dry run decides a build of 40 lines (more than one transaction held before builds were jobs) and moves nothing', async () => {
    const organizationId = await world();
    const before = await onHandBySku(organizationId);

    const dryRun = await runImportInProcess(organizationId, 'builds', buildsFile(['B-DRY', '4']), { dryRun: true });

    expect(dryRun).toMatchObject({ status: 'succeeded', counts: { created: 1, failed: 0 } });
    expect(await onHandBySku(organizationId)).toEqual(before);
  }, 120_000);
});
