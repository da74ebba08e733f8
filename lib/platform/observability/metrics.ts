import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import { SERVICE_NAME } from '../config/observability.ts';
import { METRIC } from './metric-names.ts';

/**
 * CloudWatch metrics as EMF log lines through Powertools (docs/operations.md "Metrics"). Every
 * dimension is low-cardinality (route, status class, reason, outcome): never an organization,
 * key or job id, each distinct value of which would be a metric billed on its own.
 *
 * Lives outside lib/http because the workers count too.
 */

// Only the stack sets a namespace. Without one (npm start, tests, scripts) nothing is emitted,
// unless POWERTOOLS_METRICS_DISABLED says otherwise, so local stdout stays readable. Set before
// the instance exists: Powertools reads it once, in the constructor.
if (!process.env.POWERTOOLS_METRICS_NAMESPACE) process.env.POWERTOOLS_METRICS_DISABLED ??= 'true';

export const metrics = new Metrics({ serviceName: process.env.POWERTOOLS_SERVICE_NAME || SERVICE_NAME });

export { METRIC };

export type RejectionReason = 'auth' | 'rate-limit' | 'validation';
export type ImportRowOutcome = 'created' | 'updated' | 'skipped' | 'failed';

/** `2xx` … `5xx`: one metric per class, not per status code. */
export function statusClassOf(statusCode: number): string {
  return `${Math.floor(statusCode / 100)}xx`;
}

/**
 * The request's one line of the invocation's metrics (flushed by the `logMetrics` middleware),
 * so its dimensions are the request's: the route's operationId and the response's status class.
 */
export function countRequest(operation: string, statusCode: number): void {
  metrics.addDimension('operation', operation);
  metrics.addDimension('statusClass', statusClassOf(statusCode));
  metrics.addMetric(METRIC.requests, MetricUnit.Count, 1);
}

/** Counts that need other dimensions than the request's go out as their own line, at once. */
function countAlone(name: string, value: number, dimensions: Record<string, string> = {}): void {
  const single = metrics.singleMetric();
  for (const [dimension, dimensionValue] of Object.entries(dimensions)) single.addDimension(dimension, dimensionValue);
  single.addMetric(name, MetricUnit.Count, value);
}

export function countRejection(reason: RejectionReason): void {
  countAlone(METRIC.rejections, 1, { reason });
}

export function countFeedPage(): void {
  countAlone(METRIC.feedPagesServed, 1);
}

/** Rows of finished import jobs by outcome; outcomes without rows are left out. */
export function countImportRows(rows: Readonly<Record<ImportRowOutcome, number>>): void {
  for (const [outcome, count] of Object.entries(rows)) if (count > 0) countAlone(METRIC.importRows, count, { outcome });
}

/** The import worker's invocation line: messages received and reported failed. */
export function countImportMessages(received: number, failed: number): void {
  metrics.addMetric(METRIC.importMessages, MetricUnit.Count, received);
  metrics.addMetric(METRIC.importMessagesFailed, MetricUnit.Count, failed);
}

/**
 * One delivery invocation's webhook attempts: counted per outcome, and the live first attempts'
 * delays since their commit. An invocation makes many attempts; a line per attempt would cost an
 * EMF line (and a Metrics object) each, so they are tallied and go out together at its end. Build
 * one per invocation, as everything that gathers work is (docs/architecture.md "Background flows").
 */
export class WebhookAttemptTally {
  private readonly outcomes = new Map<string, number>();

  /** One attempt by outcome (succeeded, failed, gone); a live first attempt also its delay since the event committed. */
  readonly observe = (attempt: { outcome: string; commitToAttemptMs: number | null }): void => {
    this.outcomes.set(attempt.outcome, (this.outcomes.get(attempt.outcome) ?? 0) + 1);
    // The invocation's own line carries the delays (values of one metric; Powertools starts a new line past 100).
    if (attempt.commitToAttemptMs !== null) metrics.addMetric(METRIC.webhookCommitToAttempt, MetricUnit.Milliseconds, Math.max(0, attempt.commitToAttemptMs));
  };

  /** The tallied attempts, one line per outcome; the tally starts again empty. */
  flush(): void {
    for (const [outcome, count] of this.outcomes) countAlone(METRIC.webhookAttempts, count, { outcome });
    this.outcomes.clear();
  }
}
