import { describe, expect, it } from 'vitest';
import { TIME_MARGIN_MS } from '../../../lib/platform/jobs/time-budget.ts';
import { MemoryExportWorld, stockRecord } from '../../support/export-harness.ts';

/**
 * The export worker's invocations (docs/exports.md "Guarantees"): the events after the snapshot
 * are read once per invocation, not once per page, and the time budget is looked at between the
 * pages of a part, so an invocation stops in time and the next one continues to the same file.
 */

const ORG = 'org_exports_unit';

/** `count` stock records, each given its quantity by a committed change (so S is not 0). */
function stockedWorld(count: number): MemoryExportWorld {
  const world = new MemoryExportWorld();
  for (let index = 0; index < count; index += 1) {
    const id = `stk_${String(index).padStart(10, '0')}`;
    world.stock.change(ORG, id, index + 1, '2026-11-01T00:00:00.000Z', stockRecord(id, 0));
  }
  return world;
}

/** An invocation's clock in simulated time: `pageMs` pass with each page read. */
function simulatedInvocation(world: MemoryExportWorld, totalMs: number, pageMs: number): { remainingMs: () => number; pagesReadLate: () => number } {
  let elapsed = 0;
  let late = 0;
  world.stock.onPage = () => {
    if (totalMs - elapsed < TIME_MARGIN_MS) late += 1;
    elapsed += pageMs;
  };
  return { remainingMs: () => totalMs - elapsed, pagesReadLate: () => late };
}

describe('export worker invocations', () => {
  it('reads the events after the snapshot once per invocation, however many pages, and rolls every page back', async () => {
    // Prepare: 48 records; while the export runs, 30 changes commit after S
    const world = stockedWorld(48);
    const job = world.submit(ORG, 'stock-records');
    let firstPage = true;
    world.stock.onPage = () => {
      if (!firstPage) return;
      firstPage = false;
      for (let index = 0; index < 30; index += 1) world.stock.change(ORG, `stk_${String(index).padStart(10, '0')}`, 1000 + index, '2026-11-27T10:00:00.000Z');
    };
    const eventsAtStart = world.events.log.length;

    // Act: one invocation, pages of 4 rows (12 pages), one part
    const outcome = await world.processor({ pageSize: 4, partBytes: 1 << 20 }).process(ORG, job.id, () => 120_000);

    // Assess
    expect(outcome).toBe('finished');
    expect(world.stock.pagesRead).toBeGreaterThanOrEqual(12);
    // One read brings the 30 events; the pages after it find nothing new to read.
    expect(world.events.readFromCalls).toBeLessThanOrEqual(2);
    expect(world.events.eventsRead).toBe(world.events.log.length - eventsAtStart);
    const quantities = world
      .file(job.id)
      .split('\r\n')
      .slice(1, -1)
      .map((line) => Number(line.split(',')[6]));
    expect(quantities).toEqual(Array.from({ length: 48 }, (_, index) => index + 1));
  });

  it('a time budget that runs out in the middle of a part: the worker stops reading in time, checkpoints, and later invocations end with the same file as one uninterrupted run', async () => {
    // Prepare: 60 records, pages of 4 rows (~360 bytes), parts of 1,000 bytes, a cut part kept from 300 bytes
    const sizes = { pageSize: 4, partBytes: 1000, minPartBytes: 300 };
    const uninterrupted = stockedWorld(60);
    const reference = uninterrupted.submit(ORG, 'stock-records');
    await uninterrupted.processor(sizes).process(ORG, reference.id, () => 3_600_000);
    const world = stockedWorld(60);
    const job = world.submit(ORG, 'stock-records');
    const processor = world.processor(sizes);

    // Act: invocations of 45 s in which each page takes 10 s
    let invocations = 0;
    let pagesReadLate = 0;
    while (world.job(job.id).status !== 'succeeded' && invocations < 40) {
      const clock = simulatedInvocation(world, 45_000, 10_000);
      await processor.process(ORG, job.id, clock.remainingMs, world.handOffs.at(-1)?.handoffsWithoutProgress ?? 0);
      pagesReadLate += clock.pagesReadLate();
      invocations += 1;
    }

    // Assess
    const done = world.job(job.id);
    expect(done.status).toBe('succeeded');
    expect(pagesReadLate).toBe(0);
    expect(invocations).toBeGreaterThan(3);
    expect(world.handOffs).toHaveLength(invocations - 1);
    expect(world.handOffs.every((message) => message.handoffsWithoutProgress === 0)).toBe(true);
    const partSizes = [...world.uploads.get(done.progress!.uploadId)!.values()].map((part) => part.length);
    // Some part other than the last was cut short by the budget, and still met the minimum.
    expect(partSizes.slice(0, -1).some((size) => size < sizes.partBytes && size >= sizes.minPartBytes)).toBe(true);
    expect(world.file(job.id)).toBe(uninterrupted.file(reference.id));
    expect(done.rowCount).toBe(60);
  });

  it('an export the sweeper failed between the worker’s read and its start: nothing more is done, no error', async () => {
    // Prepare
    const world = new MemoryExportWorld();
    world.stock.put(stockRecord('stk_0000000001', 1));
    const job = world.submit(ORG, 'stock-records');
    const ports = world.ports();
    const processor = world.processor({
      jobs: {
        ...ports.jobs,
        start: async (started) => {
          world.jobs.set(started.id, { ...world.job(started.id), status: 'failed', failure: { code: 'processing-error', message: 'swept' } });
          return { job: world.job(started.id), won: false };
        },
      },
    });

    // Act
    const outcome = await processor.process(ORG, job.id, () => 120_000);

    // Assess
    expect(outcome).toBe('finished');
    expect(world.job(job.id).failure?.message).toBe('swept');
  });
});
