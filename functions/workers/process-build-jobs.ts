import { requiredEnv } from '../../lib/platform/config/env.ts';
import { BuildProcessor } from '../../lib/builds/domain/process.ts';
import { jobQueueWorker } from '../../lib/platform/jobs/job-workers.ts';
import { buildPorts } from '../../lib/builds/store/build-ports.ts';
import { JobQueue } from '../../lib/platform/aws/job-queue.ts';
import { BUILD_QUEUE, BUILD_QUEUE_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';

/** The build queue's consumer (docs/boms.md "Builds"): the job flows' one queue-worker wiring (lib/platform/jobs/job-workers.ts). */

const ports = buildPorts({
  inventory: requiredEnv(TABLES.inventory.envVar),
  events: requiredEnv(TABLES.events.envVar),
  audit: requiredEnv(TABLES.audit.envVar),
});
const queue = new JobQueue(requiredEnv(BUILD_QUEUE_ENV_VAR));
const processor = new BuildProcessor(ports, (message) => queue.send(message));

export const handler = jobQueueWorker({
  processor,
  jobs: { get: async (organizationId, id) => (await ports.builds.get(organizationId, id))?.build },
  resend: (message) => queue.send(message),
  maxReceiveCount: BUILD_QUEUE.maxReceiveCount,
  flow: 'build',
  lastReceiveFailure: {
    code: 'processing-error',
    message:
      'The build could not go on after several attempts; what it held or consumed was given back. Submit it again with a new buildReference, or contact support with the build id.',
    lines: [],
  },
  countMessages: () => undefined,
});
