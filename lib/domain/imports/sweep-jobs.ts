/**
 * The sweeper: a job whose transaction committed but whose queue message was never confirmed
 * (the process died in between, or SQS failed) is handed to the queue again. Sending twice is
 * harmless: the worker is idempotent per job.
 */
export interface SweepPorts {
  pendingDispatch(cutoff: string): Promise<Array<{ organizationId: string; jobId: string }>>;
  send(message: { organizationId: string; jobId: string }): Promise<void>;
  markDispatched(organizationId: string, jobId: string): Promise<void>;
}

/** Jobs younger than this may still be on their way to the queue from the submit request. */
export const SWEEP_GRACE_SECONDS = 30;

export async function sweepPendingJobs(ports: SweepPorts, now = new Date()): Promise<number> {
  const cutoff = new Date(now.getTime() - SWEEP_GRACE_SECONDS * 1000).toISOString();
  const pending = await ports.pendingDispatch(cutoff);
  for (const job of pending) {
    await ports.send(job);
    await ports.markDispatched(job.organizationId, job.jobId);
  }
  return pending.length;
}
