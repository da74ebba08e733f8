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
  /** Every job waiting for its hand-off, however many (the store pages). */
  pendingDispatch(cutoff: string): Promise<Array<{ organizationId: string; jobId: string }>>;
  send(message: { organizationId: string; jobId: string }): Promise<void>;
  markDispatched(organizationId: string, jobId: string): Promise<void>;
  /** Every job handed to the queue and not finished, however many. */
  activeJobs(): Promise<ImportJobState[]>;
  fail(job: ImportJobState, failure: JobFailure): Promise<void>;
  /** Told about a job the sweep could not handle; the sweep goes on with the others. */
  onError?(job: { organizationId: string; jobId: string }, error: unknown): void;
}

export interface SweepResult {
  dispatched: number;
  failed: number;
  /** Jobs whose hand-off or failure did not go through this time (the next sweep tries again). */
  errors: number;
}

/** Jobs younger than this may still be on their way to the queue from the submit request. */
export const SWEEP_GRACE_SECONDS = 30;

export const STALLED_FAILURE: JobFailure = {
  code: 'processing-error',
  message: 'The import stopped making progress and was stopped. Submit the file again, or contact support with the job id.',
};

export async function sweepPendingJobs(ports: SweepPorts, now = new Date()): Promise<SweepResult> {
  const result: SweepResult = { dispatched: 0, failed: 0, errors: 0 };
  // One job's trouble (a failed send, a throttled write) must not leave every later job unswept.
  const attempt = async (job: { organizationId: string; jobId: string }, work: () => Promise<void>): Promise<boolean> => {
    try {
      await work();
      return true;
    } catch (error) {
      result.errors += 1;
      ports.onError?.(job, error);
      return false;
    }
  };
  const cutoff = new Date(now.getTime() - SWEEP_GRACE_SECONDS * 1000).toISOString();
  for (const job of await ports.pendingDispatch(cutoff)) {
    const sent = await attempt(job, async () => {
      await ports.send(job);
      await ports.markDispatched(job.organizationId, job.jobId);
    });
    if (sent) result.dispatched += 1;
  }
  const staleBefore = now.getTime() - IMPORT_STALE_AFTER_SECONDS * 1000;
  const stalled = (await ports.activeJobs()).filter((job) => Date.parse(job.progressAt ?? job.submittedAt) < staleBefore);
  for (const job of stalled) {
    if (await attempt({ organizationId: job.organizationId, jobId: job.id }, () => ports.fail(job, STALLED_FAILURE))) result.failed += 1;
  }
  return result;
}
