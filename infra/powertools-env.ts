import { metricsNamespaceFor, SERVICE_NAME } from '../lib/platform/config/observability.ts';
import type { StageConfig } from './stages.ts';

/**
 * What every function's logger and metrics read (lib/platform/observability/log.ts, lib/platform/observability/metrics.ts), decided per stage
 * (docs/operations.md "Logs", docs/operations.md "Metrics"). Setting the namespace is also what
 * turns metrics on: without it the code emits none.
 */
export function powertoolsEnvironment(stage: Pick<StageConfig, 'stage' | 'logLevel' | 'logSampleRate'>): Record<string, string> {
  return {
    POWERTOOLS_SERVICE_NAME: SERVICE_NAME,
    POWERTOOLS_METRICS_NAMESPACE: metricsNamespaceFor(stage.stage),
    POWERTOOLS_LOG_LEVEL: stage.logLevel,
    POWERTOOLS_LOGGER_SAMPLE_RATE: String(stage.logSampleRate),
  };
}
