import type { Context } from 'aws-lambda';
import { requiredEnv } from '../../lib/platform/config/env.ts';
import { sweepStalledBuilds } from '../../lib/builds/domain/sweep.ts';
import { describeError, log, startInvocation } from '../../lib/platform/observability/log.ts';
import { activeJobsOf } from '../../lib/platform/dynamo/job-store.ts';
import { buildJobDeclaration } from '../../lib/builds/store/entities.ts';
import { JobQueue } from '../../lib/platform/aws/job-queue.ts';
import { BUILD_QUEUE_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';

/** The build sweep, every minute (docs/boms.md "Builds"): stalled builds get their message again. */

const table = requiredEnv(TABLES.inventory.envVar);
const queue = new JobQueue(requiredEnv(BUILD_QUEUE_ENV_VAR));
/** Past a step this old, a build counts as stalled: longer than any step takes, shorter than SQS's redelivery (visibility 720 s). */
const STALLED_AFTER_MS = 2 * 60 * 1000;

export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const { resent } = await sweepStalledBuilds({
    // The running builds, read as the flows' one job store reads every flow's (lib/platform/dynamo/job-store.ts).
    builds: await activeJobsOf(table, buildJobDeclaration),
    now: Date.now(),
    stalledAfterMs: STALLED_AFTER_MS,
    send: (message) => queue.send(message),
    onError: (build, error) => log('warn', 'stalled build not sent again this time', { buildId: build.id, error: describeError(error) }),
  });
  if (resent > 0) log('info', 'stalled builds sent again', { resent });
};
