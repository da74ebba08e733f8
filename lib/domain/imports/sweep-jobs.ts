import { IMPORT_STALE_AFTER_SECONDS } from './job.ts';
import type { ImportJobState, JobFailure } from './job.ts';

/**
 * The sweeper, every minute:
 * - a job whose transaction committed but whose queue message was never confirmed (the process
 *   died in between, or SQS failed) is handed to the queue again; sending twice is harmless,
 *   the worker is idempotent per job;
 * - a job handed to the queue that has shown no progress for longer than any message can live
 *   (its worker timed out or ran out of memory on every attempt, so the message went to the
 *   dead-letter queue without the job being told) is failed, so no job waits forever.
 */
export interface SweepPorts {
  pendingDispatch(cutoff: string): Promise<Array<{ organizationId: string; jobId: string }>>;
  send(message: { organizationId: string; jobId: string }): Promise<void>;
  markDispatched(organizationId: string, jobId: string): Promise<void>;
  activeJobs(): Promise<ImportJobState[]>;
  fail(job: ImportJobState, failure: JobFailure): Promise<void>;
}

/** Jobs younger than this may still be on their way to the queue from the submit request. */
export const SWEEP_GRACE_SECONDS = 30;

export const STALLED_FAILURE: JobFailure = {
  code: 'processing-error',
  message: 'The import stopped making progress and was stopped. Submit the file again, or contact support with the job id.',
};

export async function sweepPendingJobs(ports: SweepPorts, now = new Date()): Promise<{ dispatched: number; failed: number }> {
  const cutoff = new Date(now.getTime() - SWEEP_GRACE_SECONDS * 1000).toISOString();
  const pending = await ports.pendingDispatch(cutoff);
  for (const job of pending) {
    await ports.send(job);
    await ports.markDispatched(job.organizationId, job.jobId);
  }
  const staleBefore = now.getTime() - IMPORT_STALE_AFTER_SECONDS * 1000;
  const stalled = (await ports.activeJobs()).filter((job) => Date.parse(job.progressAt ?? job.submittedAt) < staleBefore);
  for (const job of stalled) await ports.fail(job, STALLED_FAILURE);
  return { dispatched: pending.length, failed: stalled.length };
}
