import { describe, expect, it } from 'vitest';
import type { ImportJobState } from '../../../lib/imports/domain/job.ts';
import { ABANDONED_FAILURE, DEAD_LETTER_FAILURE, IMPORT_SWEEP_FAILURES } from '../../../lib/imports/domain/job-failures.ts';
import { sweepPendingJobs, type DeadLetter, type SweepPorts } from '../../../lib/platform/jobs/sweep-jobs.ts';
import type { JobFailure } from '../../../lib/imports/domain/job.ts';
import { IMPORT_ABANDONED_AFTER_SECONDS } from '../../../lib/imports/domain/job.ts';

const NOW = new Date('2026-11-22T12:00:00.000Z');
const longAgo = new Date(NOW.getTime() - (IMPORT_ABANDONED_AFTER_SECONDS + 60) * 1000).toISOString();
const fortyMinutesAgo = new Date(NOW.getTime() - 40 * 60_000).toISOString();

function stalledJob(id: string, since = longAgo, status: ImportJobState['status'] = 'processing'): ImportJobState {
  return {
    id,
    organizationId: 'org_1',
    kind: 'items',
    duplicateStrategy: 'skip',
    status,
    fileName: 'f.csv',
    fileSizeBytes: 1,
    fileSha256: 'x',
    fileKey: 'k',
    submittedAt: since,
    startedAt: since,
    completedAt: null,
    failure: null,
    warnings: [],
    checkpoint: 0,
    progressAt: since,
    counts: { totalRows: 1, processedRows: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
  };
}

function ports(overrides: Partial<SweepPorts<ImportJobState, JobFailure>>) {
  const sent: string[] = [];
  const failedJobs: string[] = [];
  const errors: string[] = [];
  const all: SweepPorts<ImportJobState, JobFailure> = {
    pendingDispatch: async () => ['j1', 'j2', 'j3'].map((jobId) => ({ organizationId: 'org_1', jobId })),
    send: async ({ jobId }) => void sent.push(jobId),
    markDispatched: async () => undefined,
    activeJobs: async () => [stalledJob('s1'), stalledJob('s2'), stalledJob('s3')],
    deadLetters: async () => [],
    getJob: async () => undefined,
    fail: async (job) => void failedJobs.push(job.id),
    failures: IMPORT_SWEEP_FAILURES,
    onError: (job) => void errors.push(job?.jobId ?? 'no job'),
    ...overrides,
  };
  return { all, sent, failedJobs, errors };
}

describe('sweepPendingJobs', () => {
  it('goes on with the other jobs when one send fails, and reports it', async () => {
    // Prepare: the queue refuses j2
    const run = ports({});
    run.all.send = async ({ jobId }) => {
      if (jobId === 'j2') throw new Error('SQS throttled');
      run.sent.push(jobId);
    };

    // Act
    const result = await sweepPendingJobs(run.all, NOW);

    // Assess
    expect(run.sent).toEqual(['j1', 'j3']);
    expect(run.errors).toEqual(['j2']);
    expect(run.failedJobs).toEqual(['s1', 's2', 's3']);
    expect(result).toEqual({ dispatched: 2, failed: 3, errors: 1 });
  });

  it('goes on with the other stalled jobs when failing one does not go through', async () => {
    // Prepare
    const run = ports({});
    run.all.fail = async (job, failure) => {
      expect(failure).toBe(ABANDONED_FAILURE);
      if (job.id === 's1') throw new Error('throttled');
      run.failedJobs.push(job.id);
    };

    // Act
    const result = await sweepPendingJobs(run.all, NOW);

    // Assess
    expect(run.failedJobs).toEqual(['s2', 's3']);
    expect(run.errors).toEqual(['s1']);
    expect(result).toEqual({ dispatched: 3, failed: 2, errors: 1 });
  });

  it('never fails a job for waiting: 40 minutes in a busy queue, queued or half-applied, is not stalled', async () => {
    // Prepare: no dead letters; jobs that last showed progress 40 minutes ago
    const run = ports({ activeJobs: async () => [stalledJob('q1', fortyMinutesAgo, 'queued'), stalledJob('p1', fortyMinutesAgo, 'processing')] });

    // Act
    const result = await sweepPendingJobs(run.all, NOW);

    // Assess
    expect(run.failedJobs).toEqual([]);
    expect(result.failed).toBe(0);
  });

  it('fails the job a dead letter names and removes the letter; a finished job only loses its letter; a letter naming no job is released', async () => {
    // Prepare
    const removed: string[] = [];
    const released: string[] = [];
    const letter = (name: string, jobId?: string): DeadLetter => ({
      job: jobId === undefined ? undefined : { organizationId: 'org_1', jobId },
      remove: async () => void removed.push(name),
      release: async () => void released.push(name),
    });
    const jobs = new Map([
      ['d1', stalledJob('d1', fortyMinutesAgo, 'processing')],
      ['d2', { ...stalledJob('d2', fortyMinutesAgo), status: 'failed' as const }],
    ]);
    const run = ports({
      activeJobs: async () => [],
      deadLetters: async () => [letter('a', 'd1'), letter('b', 'd2'), letter('c'), letter('d', 'gone')],
      getJob: async (_org, jobId) => jobs.get(jobId),
    });
    const failures: unknown[] = [];
    run.all.fail = async (job, failure) => {
      failures.push(failure);
      run.failedJobs.push(job.id);
    };

    // Act
    const result = await sweepPendingJobs(run.all, NOW);

    // Assess
    expect(run.failedJobs).toEqual(['d1']);
    expect(failures).toEqual([DEAD_LETTER_FAILURE]);
    expect(removed).toEqual(['a', 'b', 'd']);
    expect(released).toEqual(['c']);
    expect(result).toEqual({ dispatched: 3, failed: 1, errors: 0 });
  });
});
