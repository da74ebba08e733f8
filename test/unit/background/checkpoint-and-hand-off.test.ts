import { describe, expect, it } from 'vitest';
import { commitStep, isWriteConflict } from '../../../lib/platform/jobs/checkpoint.ts';
import { handOff, handoffsWithoutProgress, MAX_HANDOFFS_WITHOUT_PROGRESS } from '../../../lib/platform/jobs/hand-off.ts';
import { MIN_FAIR_RUN_MS, TIME_MARGIN_MS, TimeBudget } from '../../../lib/platform/jobs/time-budget.ts';
import { ApiError } from '../../../lib/platform/core/errors.ts';
import type { CommandPlan, CommandWriter } from '../../../lib/platform/write/ports.ts';

/**
 * The generic helpers of queue-driven background flows (docs/architecture.md "Checkpoints and
 * hand-offs"); the import pipeline's use of them is covered by test/unit/imports/process-job.test.ts.
 */

const CONTEXT = { organizationId: 'org_1', actor: { type: 'system' as const, id: 'test' }, traceId: null };

/** A writer that records each plan it builds, and fails its first `failures.length` attempts with them. */
function writer(failures: Error[] = []): CommandWriter<string> & { plans: CommandPlan<unknown, string>[] } {
  const plans: CommandPlan<unknown, string>[] = [];
  return {
    plans,
    async run(_context, build) {
      const plan = await build();
      plans.push(plan);
      const failure = failures.shift();
      if (failure) throw failure;
      return { result: plan.result, events: [], attempts: plans.length };
    },
  };
}

describe('commitStep', () => {
  it('commits the checkpoint write first, then the step, with its audit entry', async () => {
    // Prepare
    const target = writer();

    // Act
    const outcome = await commitStep(target, CONTEXT, () => ({
      checkpoint: 'checkpoint',
      writes: ['a', 'b'],
      events: [],
      audit: { kind: 'import.completed', target: { kind: 'import-job', id: 'imp_1' }, summary: 's', changes: [] },
    }));

    // Assess
    expect(outcome).toBe('committed');
    expect(target.plans).toEqual([expect.objectContaining({ writes: ['checkpoint', 'a', 'b'], audit: expect.objectContaining({ kind: 'import.completed' }) })]);
  });

  it('reports a step another delivery already committed, by the store error name', async () => {
    // Prepare
    const target = writer([Object.assign(new Error('moved'), { name: 'ChunkAlreadyAppliedError' })]);

    // Act
    const outcome = await commitStep(target, CONTEXT, () => ({ checkpoint: 'checkpoint', writes: [], events: [] }));

    // Assess
    expect(outcome).toBe('already-committed');
  });

  it('throws any other failure, a conflict included, for the caller to decide again', async () => {
    // Prepare
    const conflict = new ApiError(409, 'request.conflict', 'changed');
    const target = writer([conflict]);

    // Act
    const attempt = commitStep(target, CONTEXT, () => ({ checkpoint: 'checkpoint', writes: [], events: [] }));

    // Assess
    await expect(attempt).rejects.toBe(conflict);
    expect(isWriteConflict(conflict)).toBe(true);
    expect(isWriteConflict(new Error('other'))).toBe(false);
  });
});

describe('hand-off', () => {
  it.each([
    { previous: 2, progressed: true, fairRun: true, expected: 0 },
    { previous: 2, progressed: false, fairRun: true, expected: 3 },
    { previous: 2, progressed: false, fairRun: false, expected: 2 },
  ])('counts $expected invocations without progress after $previous (progressed $progressed, fair run $fairRun)', ({ expected, ...run }) => {
    // Act
    const counted = handoffsWithoutProgress(run);

    // Assess
    expect(counted).toBe(expected);
  });

  it(`continues below ${MAX_HANDOFFS_WITHOUT_PROGRESS} invocations without progress and gives up at it`, async () => {
    // Prepare
    const sent: number[] = [];
    const port = { continueLater: async (count: number) => void sent.push(count), giveUp: async () => 'gave-up' as const };

    // Act
    const below = await handOff(port, MAX_HANDOFFS_WITHOUT_PROGRESS - 1);
    const at = await handOff(port, MAX_HANDOFFS_WITHOUT_PROGRESS);

    // Assess
    expect([below, at]).toEqual(['continued', 'gave-up']);
    expect(sent).toEqual([MAX_HANDOFFS_WITHOUT_PROGRESS - 1]);
  });
});

describe('TimeBudget', () => {
  it('judges the fair run on the first look at the clock, and has time while the margin is left', () => {
    // Prepare
    const left = [MIN_FAIR_RUN_MS, TIME_MARGIN_MS, TIME_MARGIN_MS - 1];

    // Act
    const budget = new TimeBudget(() => left.shift() ?? 0);

    // Assess
    expect(budget.fairRun).toBe(true);
    expect([budget.hasTime(), budget.hasTime()]).toEqual([true, false]);
  });
});
