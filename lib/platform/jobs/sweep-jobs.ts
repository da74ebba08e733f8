import { SQS_MAX_MESSAGE_RETENTION_DAYS } from './queue-limits.ts';

/** What the sweep reads of a job: any job flow's job (imports, exports) has these. */
export interface SweptJob {
  id: string;
  organizationId: string;
  /** Finished when one of `succeeded`, `completed_with_errors`, `failed`. */
  status: string;
  submittedAt: string;
  progressAt?: string;
}

/**
 * The sweeper, every minute of every job flow (imports, exports; docs/imports.md "Guarantees"):
 * - a job whose transaction committed but whose queue message was never confirmed (the process
 *   died in between, or SQS failed) is handed to the queue again; sending twice is harmless,
 *   the worker is idempotent per job;
 * - a job whose message reached the dead-letter queue (its worker timed out or ran out of memory
 *   on every receive, so it could never mark the job failed itself) is failed, and the dead
 *   letter removed; a dead letter that names no job is left for an operator;
 * - a job is never failed for waiting: however long the queue's backlog, a job whose message is
 *   still in the queue will be processed. Only a job without progress for longer than any
 *   message can live in the queue is failed as abandoned.
 */
export interface SweepPorts<Job extends SweptJob, Failure> {
  /** Every job waiting for its hand-off, however many (the store pages). */
  pendingDispatch(cutoff: string): Promise<Array<{ organizationId: string; jobId: string }>>;
  send(message: { organizationId: string; jobId: string }): Promise<void>;
  markDispatched(organizationId: string, jobId: string): Promise<void>;
  /** Every job handed to the queue and not finished, however many. */
  activeJobs(): Promise<Job[]>;
  /** The messages in the dead-letter queue (a bounded batch), each with the job it names, if any. */
  deadLetters(): Promise<DeadLetter[]>;
  getJob(organizationId: string, jobId: string): Promise<Job | undefined>;
  fail(job: Job, failure: Failure): Promise<void>;
  /** The failures the flow's jobs get, in the flow's own words. */
  failures: { deadLetter: Failure; abandoned: Failure };
  /** Told about a job the sweep could not handle; the sweep goes on with the others. */
  onError?(job: { organizationId: string; jobId: string } | undefined, error: unknown): void;
}

export interface DeadLetter {
  job: { organizationId: string; jobId: string } | undefined;
  /** Deletes the message (its job has been dealt with). */
  remove(): Promise<void>;
  /** Makes the message visible again at once (left for an operator). */
  release(): Promise<void>;
}

export interface SweepResult {
  dispatched: number;
  failed: number;
  /** Jobs whose hand-off or failure did not go through this time (the next sweep tries again). */
  errors: number;
}

/** Jobs younger than this may still be on their way to the queue from the submit request. */
export const SWEEP_GRACE_SECONDS = 30;

/** The statuses a job of any flow ends in. */
const FINISHED_STATUSES: ReadonlySet<string> = new Set(['succeeded', 'completed_with_errors', 'failed']);

/**
 * A job that shows no progress for longer than its message can live in the queue has no message
 * left to be processed by; only then does the sweeper fail it without a dead letter naming it.
 * Time spent waiting in a busy queue never counts against a job before that.
 */
export const JOB_ABANDONED_AFTER_SECONDS = SQS_MAX_MESSAGE_RETENTION_DAYS * 86_400 + 3600;

export async function sweepPendingJobs<Job extends SweptJob, Failure>(ports: SweepPorts<Job, Failure>, now = new Date()): Promise<SweepResult> {
  const { failures } = ports;
  const result: SweepResult = { dispatched: 0, failed: 0, errors: 0 };
  // One job's trouble (a failed send, a throttled write) must not leave every later job unswept.
  const attempt = async (job: { organizationId: string; jobId: string } | undefined, work: () => Promise<void>): Promise<boolean> => {
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
  for (const letter of await ports.deadLetters()) {
    const named = letter.job;
    if (named === undefined) {
      await attempt(undefined, () => letter.release());
      continue;
    }
    await attempt(named, async () => {
      const job = await ports.getJob(named.organizationId, named.jobId);
      if (job !== undefined && !FINISHED_STATUSES.has(job.status)) {
        await ports.fail(job, failures.deadLetter);
        result.failed += 1;
      }
      await letter.remove();
    });
  }
  const abandonedBefore = now.getTime() - JOB_ABANDONED_AFTER_SECONDS * 1000;
  const abandoned = (await ports.activeJobs()).filter((job) => Date.parse(job.progressAt ?? job.submittedAt) < abandonedBefore);
  for (const job of abandoned) {
    if (await attempt({ organizationId: job.organizationId, jobId: job.id }, () => ports.fail(job, failures.abandoned))) result.failed += 1;
  }
  return result;
}
