import type { ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import { IMPORT_QUEUE } from '../lib/platform/storage/tables.ts';
import type { QueueWorkerDefinition } from '../lib/app/workers.ts';
import type { StageConfig } from './stages.ts';

/**
 * How much of the service may run at once (docs/operations.md#throttling-and-concurrency):
 *
 * - At the edge, the stage's default route throttling caps all clients together, before any
 *   Lambda runs; the per-key limits of the chain come after it. The API's concurrency is about
 *   its rate × the functions' duration, so this cap is also what keeps API traffic from
 *   draining the account's concurrency.
 * - The import worker gets reserved concurrency (per stage), so a burst of API traffic can never
 *   take the last free executions from it: its event source mapping would be throttled and its
 *   messages would come back later, up to the dead-letter queue. No API function is capped with
 *   reserved concurrency: with one function per route, each cap would be reserved (and idle)
 *   capacity too.
 */

/** The `$default` stage's default route settings (every route inherits them). */
export function stageThrottle(config: StageConfig): ThrottleSettings {
  return { rateLimit: config.apiThrottle.rateLimit, burstLimit: config.apiThrottle.burstLimit };
}

/**
 * The reserved concurrency of a queue worker on this stage, or undefined for none. Below the
 * mapping's `maxConcurrency` Lambda would throttle the mapping itself, so that fails the synth.
 */
export function reservedConcurrencyFor(worker: QueueWorkerDefinition, config: StageConfig): number | undefined {
  // Only the import worker is reserved: webhook deliveries wait in their queue (retried for days).
  if (worker.queue !== IMPORT_QUEUE.id) return undefined;
  const reserved = config.importWorkerReservedConcurrency;
  if (reserved !== undefined && reserved < worker.maxConcurrency) {
    throw new Error(
      `Worker ${worker.id}: reserved concurrency ${reserved} is below its event source's maxConcurrency ${worker.maxConcurrency}; ` +
        `reserve at least ${worker.maxConcurrency} or 'none'.`,
    );
  }
  return reserved;
}
