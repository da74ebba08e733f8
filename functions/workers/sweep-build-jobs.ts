import type { Context } from 'aws-lambda';
import { requiredEnv } from '../../lib/config/env.ts';
import type { Build } from '../../lib/domain/builds/build.ts';
import { describeError, log, startInvocation } from '../../lib/log.ts';
import { activeJobItems } from '../../lib/store/active-jobs-index.ts';
import { buildActiveShard } from '../../lib/store/builds-store.ts';
import { JobQueue } from '../../lib/store/job-queue.ts';
import { BUILD_QUEUE_ENV_VAR, TABLES } from '../../lib/store/tables.ts';

/**
 * The build sweep, every minute (docs/boms.md "Builds"): a build not done whose last step is
 * older than STALLED_AFTER_MS gets its message again — the submission's send failed after its
 * commit, or every delivery so far died. A build runs from its checkpoint, so a message too many
 * costs a read, never a step twice.
 */

const table = requiredEnv(TABLES.inventory.envVar);
const queue = new JobQueue(requiredEnv(BUILD_QUEUE_ENV_VAR));
export const STALLED_AFTER_MS = 2 * 60 * 1000;

export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const now = Date.now();
  const builds = (await activeJobItems(table, buildActiveShard)).map((item) => item.build as Build | undefined);
  let resent = 0;
  for (const build of builds) {
    if (!build || build.progress.phase === 'done' || now - Date.parse(build.updatedAt) < STALLED_AFTER_MS) continue;
    try {
      await queue.send({ organizationId: build.organizationId, jobId: build.id });
      resent += 1;
    } catch (error) {
      log('warn', 'stalled build not sent again this time', { buildId: build.id, error: describeError(error) });
    }
  }
  if (resent > 0) log('info', 'stalled builds sent again', { resent });
};
