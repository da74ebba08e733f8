import { describe, expect, it } from 'vitest';
import { EXPORT_WAIT_SECONDS, MAX_RUNNING_EXPORTS_PER_ORGANIZATION } from '../../../lib/exports/domain/process-export.ts';
import { MemoryExportWorld, stockRecord } from '../../support/export-harness.ts';

/**
 * Fairness between organizations (docs/exports.md "Fairness"): at most
 * MAX_RUNNING_EXPORTS_PER_ORGANIZATION exports of one organization run at once; the others stay
 * queued, are looked at again later, and start when one ends. Another organization's export runs
 * meanwhile.
 */

const BUSY = 'org_busy_tenant';
const OTHER = 'org_other_tenant';

describe('running exports per organization', () => {
  it('runs 2 of one organization’s 6 exports, keeps the rest queued without failing them, runs another organization’s export meanwhile, and starts a waiting one when a slot frees', async () => {
    // Prepare: 12 records (3 pages of 4), a part per page
    const world = new MemoryExportWorld();
    for (let index = 0; index < 12; index += 1) world.stock.put(stockRecord(`stk_${String(index).padStart(10, '0')}`, index + 1));
    const processor = world.processor({ pageSize: 4, partBytes: 1 });
    const busy = Array.from({ length: 6 }, () => world.submit(BUSY, 'stock-records'));
    const other = world.submit(OTHER, 'stock-records');
    /** One invocation with time for one part, then a hand-off. */
    const onePart = () => {
      let looks = 0;
      return () => (looks++ <= 1 ? 120_000 : 0);
    };

    // Act: every busy export delivered once, then the other organization's, then the first busy one to its end
    const outcomes = [];
    for (const job of busy) outcomes.push(await processor.process(BUSY, job.id, onePart()));
    const otherOutcome = await processor.process(OTHER, other.id, () => 120_000);
    const waitingBefore = busy.filter((job) => world.job(job.id).status === 'queued').length;
    await processor.process(BUSY, busy[0]!.id, () => 120_000);
    const retried = world.retries.find(({ message }) => message.jobId === busy[2]!.id)!;
    const redelivered = await processor.process(BUSY, busy[2]!.id, onePart(), retried.message.handoffsWithoutProgress);

    // Assess
    expect(MAX_RUNNING_EXPORTS_PER_ORGANIZATION).toBe(2);
    expect(outcomes).toEqual(['continued', 'continued', 'waiting', 'waiting', 'waiting', 'waiting']);
    expect(waitingBefore).toBe(4);
    expect(world.retries.map(({ message, delaySeconds }) => [message.jobId, message.handoffsWithoutProgress, delaySeconds])).toEqual(
      busy.slice(2).map((job) => [job.id, 0, EXPORT_WAIT_SECONDS]),
    );
    expect(otherOutcome).toBe('finished');
    expect(world.job(other.id).status).toBe('succeeded');
    expect(world.job(other.id).rowCount).toBe(12);
    expect(world.job(busy[0]!.id).status).toBe('succeeded');
    expect(redelivered).toBe('continued');
    expect(world.job(busy[2]!.id).status).toBe('processing');
    expect(busy.map((job) => world.job(job.id).status).filter((status) => status === 'failed')).toEqual([]);
    expect(world.slots.mostHeld).toBe(2);
    expect([...world.slots.running.get(BUSY)!].sort()).toEqual([busy[1]!.id, busy[2]!.id].sort());
  });

  it('gives the slot back when an export fails', async () => {
    // Prepare
    const world = new MemoryExportWorld();
    for (let index = 0; index < 3; index += 1) world.stock.put(stockRecord(`stk_${String(index).padStart(10, '0')}`, 1));
    const job = world.submit(BUSY, 'stock-records');

    // Act: more rows than allowed
    await world.processor({ pageSize: 4, partBytes: 1, maxRows: 2 }).process(BUSY, job.id, () => 120_000);

    // Assess
    expect(world.job(job.id).failure?.code).toBe('too-many-rows');
    expect(world.slots.mostHeld).toBe(1);
    expect([...(world.slots.running.get(BUSY) ?? [])]).toEqual([]);
  });
});
