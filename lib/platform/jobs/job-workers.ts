import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { createJobQueueHandler, type JobQueuePorts } from './job-queue-handler.ts';
import { sweepPendingJobs, type DeadLetter, type SweepPorts, type SweptJob } from './sweep-jobs.ts';
import { describeError, log, logger, startInvocation } from '../observability/log.ts';
import { metrics } from '../observability/metrics.ts';

/**
 * The one wiring of a job flow's workers (imports, exports, builds; docs/architecture.md
 * "Background flows"): functions/workers/process-<flow>-jobs.ts and sweep-<flow>-jobs.ts pass
 * their stores and words, nothing else. Every queue worker runs the shared batch handling in the
 * same chain (the logger's per-invocation context, the metrics flushed); every sweeper of a flow
 * with a dispatch partition runs the shared sweep and logs it the same way.
 */

/** A flow's queue consumer: the shared batch handling (job-queue-handler.ts) with the logger's and metrics' per-invocation handling. */
export function jobQueueWorker<Job, Failure, Outcome>(ports: JobQueuePorts<Job, Failure, Outcome>) {
  return middy<SQSEvent, SQSBatchResponse, Error, Context>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics))
    .handler(createJobQueueHandler(ports));
}

/** What a flow's sweeper is wired from: its job store (lib/platform/dynamo/job-store.ts), queue, dead letters and failure. */
export interface JobSweepWiring<Job extends SweptJob, Failure> {
  /** The flow's name in logs (`import`, `export`). */
  flow: string;
  jobs: {
    pendingDispatch(cutoff: string): Promise<Array<{ organizationId: string; jobId: string }>>;
    markDispatched(organizationId: string, jobId: string): Promise<void>;
    activeJobs(): Promise<Job[]>;
    get(organizationId: string, jobId: string): Promise<Job | undefined>;
  };
  queue: { send(message: { organizationId: string; jobId: string }): Promise<void> };
  deadLetters: { receive(): Promise<DeadLetter[]> };
  fail: SweepPorts<Job, Failure>['fail'];
  failures: SweepPorts<Job, Failure>['failures'];
}

/** A flow's scheduled sweeper: the shared sweep (sweep-jobs.ts) over its jobs, logged when it did something. */
export function jobSweepWorker<Job extends SweptJob, Failure>(wiring: JobSweepWiring<Job, Failure>) {
  const { flow, jobs, queue, deadLetters } = wiring;
  return async (_event?: unknown, context?: Context): Promise<void> => {
    startInvocation(context);
    const swept = await sweepPendingJobs<Job, Failure>({
      pendingDispatch: (cutoff) => jobs.pendingDispatch(cutoff),
      send: (message) => queue.send(message),
      markDispatched: (organizationId, jobId) => jobs.markDispatched(organizationId, jobId),
      activeJobs: () => jobs.activeJobs(),
      deadLetters: () => deadLetters.receive(),
      getJob: (organizationId, jobId) => jobs.get(organizationId, jobId),
      fail: wiring.fail,
      failures: wiring.failures,
      onError: (job, error) => log('warn', `${flow} job not swept this time`, { ...job, error: describeError(error) }),
    });
    if (swept.dispatched > 0 || swept.failed > 0 || swept.errors > 0) log('info', `${flow} jobs swept`, { ...swept });
  };
}
