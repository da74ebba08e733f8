import { Duration } from 'aws-cdk-lib';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import {
  Alarm,
  AlarmStatusWidget,
  ComparisonOperator,
  Dashboard,
  GraphWidget,
  LogQueryWidget,
  MathExpression,
  Metric as CloudWatchMetric,
  TreatMissingData,
} from 'aws-cdk-lib/aws-cloudwatch';
import type { IMetric, Metric } from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import { FilterPattern } from 'aws-cdk-lib/aws-logs';
import type { ILogGroup } from 'aws-cdk-lib/aws-logs';
import { Topic } from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import { metricsNamespaceFor, SERVICE_NAME } from '../lib/platform/config/observability.ts';
import { METRIC } from '../lib/platform/observability/metric-names.ts';
import { WORKERS } from '../lib/app/workers.ts';
import type { ApiFunction } from './api-function.ts';
import type { WorkerQueue } from './background-flow.ts';
import type { StageConfig } from './stages.ts';

/**
 * The stage's alarms and its dashboard (docs/operations.md#alarms-and-dashboard). Alarms are
 * created in the stack itself so their logical ids (and the names they carry) stay put.
 */

/** Every threshold of the alarms below, in one place (docs/operations.md#alarms-and-dashboard). */
export const ALARM_THRESHOLDS = {
  /** 5xx responses, in percent of all responses of a 5-minute period… */
  api5xxPercent: 5,
  /** …counted only from this many requests in the period on (one error in three is no outage). */
  api5xxMinimumRequests: 20,
  /** 429 responses in 5 minutes: the stage throttle or clients' per-key limits. */
  apiThrottledPerFiveMinutes: 100,
  /** Dead letters visible: any. */
  deadLettersVisible: 0,
  /** Worker errors (failed or timed-out invocations) in each of 2 of the last 3 five-minute periods. */
  workerErrorsPerFiveMinutes: 1,
} as const;

const FIVE_MINUTES = Duration.minutes(5);

/** Namespace of the metrics this stack derives from logs; one per stage. */
export function metricNamespaceFor(config: StageConfig): string {
  return config.resourcePrefix;
}

export interface ObservedResources {
  config: StageConfig;
  apiStage: HttpStage;
  accessLogs: ILogGroup;
  /** The background flows' queues; each brings its own dead-letter alarm (infra/background-flow.ts). */
  workerQueues: readonly WorkerQueue[];
  /** Route functions by operationId (one per route: per-function metrics are per-route metrics). */
  routeFunctions: ReadonlyMap<string, ApiFunction>;
  fallbackFunction: ApiFunction;
  workerFunctions: ReadonlyMap<string, ApiFunction>;
  /** Alarms a flow brings besides its dead letters (a stream worker's iterator age, failed webhook attempts). */
  flowAlarms?: readonly Alarm[];
}

export interface StageAlarms {
  api5xxRate: Alarm;
  apiThrottled: Alarm;
  /** One per group of at most 10 workers, in WORKERS order (`worker-errors`, `worker-errors-2`, …). */
  workerErrors: readonly Alarm[];
  /** One per queue (its `WorkerQueue.deadLetterAlarm`), by queue id. */
  deadLetters: Readonly<Record<string, Alarm>>;
  /** The flows' own alarms (`ObservedResources.flowAlarms`). */
  flows: readonly Alarm[];
}

/** Every alarm of the stage, in a stable order. */
export function allAlarms(alarms: StageAlarms): Alarm[] {
  return [alarms.api5xxRate, alarms.apiThrottled, ...Object.values(alarms.deadLetters), ...alarms.workerErrors, ...alarms.flows];
}

/** The stage's alarms (with each queue's dead-letter alarm); each notifies the stage's SNS topic (ALARM and OK) when one is configured. */
export function createAlarms(scope: Construct, resources: ObservedResources): StageAlarms {
  const { config } = resources;
  const name = (suffix: string) => `${config.resourcePrefix}-${suffix}`;

  const api5xxRate = new Alarm(scope, 'Api5xxRateAlarm', {
    alarmName: name('api-5xx-rate'),
    alarmDescription: `More than ${ALARM_THRESHOLDS.api5xxPercent}% of the API's responses in 5 minutes were 5xx (from ${ALARM_THRESHOLDS.api5xxMinimumRequests} requests on).`,
    metric: api5xxPercent(resources.apiStage),
    threshold: ALARM_THRESHOLDS.api5xxPercent,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

  const apiThrottled = new Alarm(scope, 'ApiThrottledAlarm', {
    alarmName: name('api-throttled'),
    alarmDescription: 'Many requests were refused with 429: the stage throttle (no integration ran) or per-key rate limits; the access logs tell which.',
    metric: throttledRequests(resources),
    threshold: ALARM_THRESHOLDS.apiThrottledPerFiveMinutes,
    comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });

  // A metric-math alarm watches at most MAX_ALARM_METRICS metrics: the workers are watched in groups, in order.
  const workerGroups = groupsOf([...resources.workerFunctions.entries()], MAX_ALARM_METRICS);
  const workerErrors = workerGroups.map(
    (group, index) =>
      new Alarm(scope, index === 0 ? 'WorkerErrorsAlarm' : `WorkerErrorsAlarm${index + 1}`, {
        alarmName: name(index === 0 ? 'worker-errors' : `worker-errors-${index + 1}`),
        alarmDescription: `Worker invocations failed (an unhandled error or a timeout) in 2 of the last 3 five-minute periods: ${group.map(([id]) => id).join(', ')}.`,
        metric: workerErrorSum(group),
        threshold: ALARM_THRESHOLDS.workerErrorsPerFiveMinutes,
        comparisonOperator: ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        evaluationPeriods: 3,
        datapointsToAlarm: 2,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
  );

  const deadLetters = Object.fromEntries(resources.workerQueues.map((flow) => [flow.spec.id, flow.deadLetterAlarm]));
  const alarms: StageAlarms = { api5xxRate, apiThrottled, workerErrors, deadLetters, flows: resources.flowAlarms ?? [] };
  if (config.alarmTopicArn !== undefined) {
    const action = new SnsAction(Topic.fromTopicArn(scope, 'AlarmTopic', config.alarmTopicArn));
    for (const alarm of allAlarms(alarms)) {
      alarm.addAlarmAction(action);
      alarm.addOkAction(action);
    }
  }
  return alarms;
}

/** 100 × 5xx / requests, or 0 in a period with too few requests to judge. */
function api5xxPercent(stage: HttpStage): MathExpression {
  return new MathExpression({
    label: '5xx %',
    expression: `IF(requests >= ${ALARM_THRESHOLDS.api5xxMinimumRequests}, 100 * FILL(errors, 0) / requests, 0)`,
    usingMetrics: {
      requests: stage.metricCount({ statistic: 'Sum', period: FIVE_MINUTES }),
      errors: stage.metricServerError({ period: FIVE_MINUTES }),
    },
    period: FIVE_MINUTES,
  });
}

/**
 * 429 responses, counted from the access logs (HTTP APIs publish no throttle metric; both the
 * stage throttle and the chain's per-key limits answer 429).
 */
function throttledRequests(resources: ObservedResources): Metric {
  const namespace = metricNamespaceFor(resources.config);
  const filter = resources.accessLogs.addMetricFilter('ThrottledRequests', {
    filterPattern: FilterPattern.stringValue('$.status', '=', '429'),
    metricNamespace: namespace,
    metricName: 'ThrottledRequests',
    metricValue: '1',
  });
  return filter.metric({ statistic: 'Sum', period: FIVE_MINUTES, label: '429 responses' });
}

/** CloudWatch alarms on metric math take at most 10 metrics. */
const MAX_ALARM_METRICS = 10;

function groupsOf<T>(list: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < list.length; start += size) groups.push(list.slice(start, start + size));
  return groups;
}

function workerErrorSum(entries: ReadonlyArray<readonly [string, ApiFunction]>): IMetric {
  const usingMetrics = Object.fromEntries(entries.map(([, fn], index) => [`w${index}`, fn.function.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES })]));
  return new MathExpression({
    label: 'worker errors',
    expression:
      Object.keys(usingMetrics)
        .map((id) => `FILL(${id}, 0)`)
        .join(' + ') || '0',
    usingMetrics,
    period: FIVE_MINUTES,
  });
}

/** One dashboard per stage, named like the stage's resources. */
export function createDashboard(scope: Construct, resources: ObservedResources, alarms: StageAlarms): Dashboard {
  const { config, apiStage, routeFunctions, workerFunctions } = resources;
  const dashboard = new Dashboard(scope, 'Dashboard', { dashboardName: config.resourcePrefix, defaultInterval: Duration.hours(3) });
  const perFunction = (functions: ReadonlyMap<string, ApiFunction>, metric: (fn: ApiFunction, label: string) => IMetric) =>
    [...functions.entries()].map(([label, fn]) => metric(fn, label));
  // One function per route: its Lambda metrics are the route's, at no cost.
  const routes = new Map([...routeFunctions, ['$default', resources.fallbackFunction] as const]);

  dashboard.addWidgets(new AlarmStatusWidget({ title: 'Alarms', alarms: allAlarms(alarms), width: 24, height: 3 }));
  dashboard.addWidgets(
    new GraphWidget({
      title: 'API requests and errors',
      left: [
        apiStage.metricCount({ statistic: 'Sum', period: FIVE_MINUTES, label: 'requests' }),
        apiStage.metricClientError({ period: FIVE_MINUTES, label: '4xx' }),
        apiStage.metricServerError({ period: FIVE_MINUTES, label: '5xx' }),
        alarms.apiThrottled.metric,
      ],
      width: 12,
    }),
    new GraphWidget({
      title: 'API latency (ms)',
      left: ['p50', 'p95', 'p99'].map((statistic) => apiStage.metricLatency({ statistic, period: FIVE_MINUTES, label: `latency ${statistic}` })),
      right: [apiStage.metricIntegrationLatency({ statistic: 'p95', period: FIVE_MINUTES, label: 'integration p95' })],
      width: 12,
    }),
  );
  dashboard.addWidgets(
    new GraphWidget({
      title: 'Routes: duration p95 (ms)',
      left: perFunction(routes, (fn, label) => fn.function.metricDuration({ statistic: 'p95', period: FIVE_MINUTES, label })),
      width: 12,
    }),
    new GraphWidget({
      title: 'Routes: Lambda errors and throttles',
      left: perFunction(routes, (fn, label) => fn.function.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES, label: `${label} errors` })),
      right: perFunction(routes, (fn, label) => fn.function.metricThrottles({ statistic: 'Sum', period: FIVE_MINUTES, label: `${label} throttles` })),
      width: 12,
    }),
  );
  dashboard.addWidgets(
    new LogQueryWidget({
      title: 'Routes: 5xx responses (access logs)',
      logGroupNames: [resources.accessLogs.logGroupName],
      queryLines: ['fields routeKey, status', 'filter status like /^5/', 'stats count(*) as responses by routeKey, status', 'sort responses desc'],
      width: 24,
    }),
  );
  const queueWidgets = resources.workerQueues.map(
    ({ title, queue, deadLetterQueue }) =>
      new GraphWidget({
        title,
        left: [
          queue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'visible' }),
          queue.metricApproximateNumberOfMessagesNotVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'in flight' }),
          deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'dead letters' }),
        ],
        right: [queue.metricApproximateAgeOfOldestMessage({ period: FIVE_MINUTES, statistic: 'Maximum', label: 'oldest message (s)' })],
        width: 12,
      }),
  );
  dashboard.addWidgets(
    ...queueWidgets,
    new GraphWidget({
      title: 'Workers: errors, throttles, concurrency',
      left: [
        ...perFunction(workerFunctions, (fn, label) => fn.function.metricErrors({ statistic: 'Sum', period: FIVE_MINUTES, label: `${label} errors` })),
        ...perFunction(workerFunctions, (fn, label) => fn.function.metricThrottles({ statistic: 'Sum', period: FIVE_MINUTES, label: `${label} throttles` })),
      ],
      right: perFunction(workerFunctions, (fn, label) =>
        fn.function.metric('ConcurrentExecutions', { statistic: 'Maximum', period: FIVE_MINUTES, label: `${label} concurrency` }),
      ),
      width: 12,
    }),
  );
  dashboard.addWidgets(...webhookWidgets(config, workerFunctions));
  return dashboard;
}

/** Webhooks (docs/webhooks.md): attempts by outcome, commit → first attempt, and how far the dispatcher's stream lags. */
function webhookWidgets(config: StageConfig, workerFunctions: ReadonlyMap<string, ApiFunction>): GraphWidget[] {
  const serviceMetric = (metricName: string, statistic: string, label: string, dimensions: Record<string, string> = {}) =>
    new CloudWatchMetric({
      namespace: metricsNamespaceFor(config.stage),
      metricName,
      dimensionsMap: { service: SERVICE_NAME, ...dimensions },
      period: FIVE_MINUTES,
      statistic,
      label,
    });
  const streamWorkers = WORKERS.filter((worker) => worker.trigger === 'stream').flatMap((worker) => {
    const fn = workerFunctions.get(worker.id);
    return fn ? [fn.function.metric('IteratorAge', { statistic: 'Maximum', period: FIVE_MINUTES, label: `${worker.id} iterator age (ms)` })] : [];
  });
  return [
    new GraphWidget({
      title: 'Webhooks: attempts by outcome',
      left: ['succeeded', 'failed', 'gone'].map((outcome) => serviceMetric(METRIC.webhookAttempts, 'Sum', outcome, { outcome })),
      width: 12,
    }),
    new GraphWidget({
      title: 'Webhooks: commit to first attempt (ms), dispatcher lag',
      left: ['p50', 'p99'].map((statistic) => serviceMetric(METRIC.webhookCommitToAttempt, statistic, `commit to first attempt ${statistic}`)),
      right: streamWorkers,
      width: 12,
    }),
  ];
}
