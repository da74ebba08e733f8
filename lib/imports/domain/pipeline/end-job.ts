import { commitStep } from '../../../platform/jobs/checkpoint.ts';
import type { CommandWriter } from '../../../platform/write/ports.ts';
import { finalStatus, type ImportJobState, type JobCounts, type JobFailure, type JobStatus } from '../job.ts';
import { SYSTEM_ACTOR, type ProcessOutcome, type ProcessPorts } from './ports.ts';

/**
 * Job end: the job's final status and its audit entry (`import.completed` / `import.failed`) in
 * one transaction, once; a job another delivery already ended is left as it is.
 */

type EndPorts<Write> = { jobs: Pick<ProcessPorts<Write>['jobs'], 'finishWrite'>; writer: CommandWriter<Write>; onEnded?: ProcessPorts<Write>['onEnded'] };

/** Ends a job whose every row was handled, with the status its counts give. */
export async function finishJob<Write>(
  ports: EndPorts<Write> & Pick<ProcessPorts<Write>, 'jobs'>,
  job: ImportJobState,
  now: () => string,
): Promise<ProcessOutcome> {
  const latest = (await ports.jobs.get(job.organizationId, job.id)) ?? job;
  await endJob(ports, latest, finalStatus(latest.counts), null, now());
  return 'finished';
}

/** Ends a job as failed. */
export async function failJob<Write>(ports: EndPorts<Write>, job: ImportJobState, failure: JobFailure, now: string): Promise<ProcessOutcome> {
  await endJob(ports, job, 'failed', failure, now);
  return 'finished';
}

/**
 * Ends a job with its final status and audit entry in one transaction; a job another delivery
 * already ended is left as it is (and `onEnded` is not told).
 */
export async function endJob<Write>(ports: EndPorts<Write>, job: ImportJobState, status: JobStatus, failure: JobFailure | null, now: string): Promise<void> {
  const summary =
    (job.dryRun ? 'Dry run: ' : '') +
    (status === 'failed' ? `Import ${job.id} failed: ${failure?.code ?? 'unknown'}` : `Import ${job.id} ${status}: ${describeCounts(job.counts)}`);
  const committed = await commitStep(ports.writer, { organizationId: job.organizationId, actor: SYSTEM_ACTOR, traceId: null }, () => ({
    checkpoint: ports.jobs.finishWrite(job, status, failure, now),
    writes: [],
    audit: {
      kind: status === 'failed' ? ('import.failed' as const) : ('import.completed' as const),
      target: { kind: 'import-job', id: job.id },
      summary,
      changes: [
        { field: 'status', from: job.status, to: status },
        // Unchanged, and said: a reader of the audit log tells a dry run from a real one.
        { field: 'dryRun', from: job.dryRun ?? false, to: job.dryRun ?? false },
      ],
    },
    events: [],
  }));
  // Finished by another delivery in the meantime: nothing left to do.
  if (committed === 'already-committed') return;
  ports.onEnded?.(job, status);
}

function describeCounts(counts: JobCounts): string {
  return `${counts.created} created, ${counts.updated} updated, ${counts.skipped} skipped, ${counts.failed} failed of ${counts.totalRows}`;
}
