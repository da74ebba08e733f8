import { describe, expect, it } from 'vitest';
import { uniqueOrganization } from '../support/api.ts';
import { countingRecords, eventsSnapshot, recordWrites, runJob, seedCatalog, writesBeyondTheJob } from '../support/dry-runs.ts';
import { csvOf, storedJob } from '../support/imports.ts';

/**
 * A dry run across invocations (docs/imports.md "Dry runs"): rows 1–20 bring stock that rows
 * 21–41 take, so whether a late row has stock depends on rows decided by earlier invocations. Its
 * overlay of would-be records survives the end of an invocation and a crash before a commit; on
 * the local stack, in transactions of 8 actions (two adjustments each).
 */

/** 20 receipts of 1 of P1 at W2 (which has none), then 21 issues of 1: the last has no stock left. */
const FILE = csvOf(
  ['reference', 'sku', 'locationCode', 'quantityDelta'],
  [
    ...Array.from({ length: 20 }, (_, index) => [`IN-${index + 1}`, 'P1', 'W2', '1']),
    ...Array.from({ length: 21 }, (_, index) => [`OUT-${index + 1}`, 'P1', 'W2', '-1']),
  ],
);

/** Invocations that end after a few chunks, and a crash before the 4th transaction. */
const RESUMED = { duplicateStrategy: 'fail', callsPerInvocation: 8, crashBeforeTransaction: 4 } as const;

describe('a dry run resumed after its invocation ended mid-file', () => {
  it('gives the verdicts of an uninterrupted dry run and of the real run, reading no more than the real run does', async () => {
    // Prepare: a catalog without stock of P1 at W2
    const organizationId = uniqueOrganization();
    await seedCatalog(organizationId);
    const before = await eventsSnapshot(organizationId);
    const recorder = recordWrites();

    // Act: a dry run in one invocation; one through invocations of a few chunks, crashing once; then the real run
    const wholeReads = countingRecords();
    const whole = await runJob(organizationId, 'stock-adjustments', FILE, {
      duplicateStrategy: 'fail',
      dryRun: true,
      callsPerInvocation: 10_000,
      records: wholeReads.records,
    });
    const resumedReads = countingRecords();
    const resumed = await runJob(organizationId, 'stock-adjustments', FILE, { ...RESUMED, dryRun: true, records: resumedReads.records });
    const halfwayPointer = (await storedJob(organizationId, resumed.jobId)).dryRunOverlay;
    recorder.stop();
    const afterDryRuns = await eventsSnapshot(organizationId);
    // The real run as the resumed dry run ran (the same invocations and crash), on a copy of the data.
    const twin = uniqueOrganization();
    await seedCatalog(twin);
    const realResumedReads = countingRecords();
    const realResumed = await runJob(twin, 'stock-adjustments', FILE, { ...RESUMED, dryRun: false, records: realResumedReads.records });
    const realReads = countingRecords();
    const realRecorder = recordWrites();
    const real = await runJob(organizationId, 'stock-adjustments', FILE, {
      duplicateStrategy: 'fail',
      dryRun: false,
      callsPerInvocation: 10_000,
      records: realReads.records,
    });
    realRecorder.stop();

    // Assess: every adjustment but the last applies; the resumed run took several invocations
    // and kept its overlay in objects named by its job; nothing was written by either dry run
    expect(whole.invocations).toBe(1);
    expect(resumed.invocations).toBeGreaterThanOrEqual(3);
    expect(halfwayPointer?.objects).toBeGreaterThan(0);
    expect(real.verdicts.counts).toEqual({ totalRows: 41, processedRows: 41, created: 40, updated: 0, skipped: 0, failed: 1 });
    expect(real.verdicts.errors.map(({ rowNumber, code }) => ({ rowNumber, code }))).toEqual([{ rowNumber: 41, code: 'insufficient-stock' }]);
    expect(whole.verdicts).toEqual(real.verdicts);
    expect(resumed.verdicts).toEqual(real.verdicts);
    // The recorder sees the dry runs' job writes, and the real run's stock: the check can fail.
    expect(recorder.writes.length).toBeGreaterThan(0);
    expect(writesBeyondTheJob(recorder.writes)).toEqual([]);
    expect(writesBeyondTheJob(realRecorder.writes).length).toBeGreaterThan(0);
    expect(afterDryRuns).toEqual(before);
    expect(realResumed.verdicts).toEqual(real.verdicts);
    expect(wholeReads.reads()).toBeLessThanOrEqual(realReads.reads());
    expect(resumedReads.reads()).toBeLessThanOrEqual(realResumedReads.reads());
  });
});
