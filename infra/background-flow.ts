import { Duration } from 'aws-cdk-lib';
import { Alarm, ComparisonOperator, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { FilterCriteria, StartingPosition } from 'aws-cdk-lib/aws-lambda';
import { SqsDlq } from 'aws-cdk-lib/aws-lambda-event-sources';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { Construct } from 'constructs';
import { physicalQueueName } from '../lib/platform/storage/tables.ts';
import type { QueueSpec } from '../lib/platform/storage/tables.ts';
import type { QueueWorkerDefinition, ScheduledWorkerDefinition, StreamWorkerDefinition, WorkerDefinition } from '../lib/app/workers.ts';
import { ApiFunction } from './api-function.ts';
import type { ApiFunctionResources } from './api-function.ts';
import { assertGrantMatchesAccess } from './grants.ts';
import type { FunctionGrant } from './grants.ts';
import { ALARM_THRESHOLDS } from './observability.ts';
import type { StageConfig } from './stages.ts';
import { reservedConcurrencyFor } from './throttling.ts';

/**
 * THE shape of a background flow (docs/contributing.md "A background flow"): a queue of
 * lib/platform/storage/tables.ts with its dead-letter queue, redrive and DLQ alarm (`WorkerQueue`); a worker
 * of lib/app/workers.ts consuming it through an event source mapping with partial batch responses
 * (`addQueueWorker`); and the scheduled sweepers (`addScheduledWorker`). Every worker function is
 * an `ApiFunction` granted its entry of infra/grants.ts and nothing else.
 *
 * Resources are created in the given scope (the stack) rather than under a construct of their
 * own: their construct ids, hence the deployed logical ids and the queues holding messages,
 * stay what they were before this module existed.
 */

/**
 * AWS guidance for SQS event sources: the queue's visibility timeout is at least 6× the function
 * timeout, so a message is not redelivered while a (retried, throttled) invocation still holds it.
 */
export const VISIBILITY_TIMEOUT_FACTOR = 6;

/** Throws at synth when `worker`'s queue would redeliver messages its invocation still holds. */
export function assertVisibilityTimeout(worker: QueueWorkerDefinition, visibilityTimeoutSeconds: number): void {
  const needed = VISIBILITY_TIMEOUT_FACTOR * worker.timeoutSeconds;
  if (visibilityTimeoutSeconds < needed) {
    throw new Error(
      `Worker ${worker.id}: queue '${worker.queue}' has a visibility timeout of ${visibilityTimeoutSeconds} s, ` +
        `below ${VISIBILITY_TIMEOUT_FACTOR} × its timeout of ${worker.timeoutSeconds} s = ${needed} s.`,
    );
  }
}

/**
 * EventBridge rates are whole minutes (≥ 1): a worker's `everySeconds` is rounded UP to the next
 * whole minute, so the deployed schedule never runs more often than the definition asks.
 */
export function scheduleRateMinutes(everySeconds: number): number {
  if (!Number.isFinite(everySeconds) || everySeconds <= 0) throw new Error(`everySeconds must be positive, got ${everySeconds}.`);
  return Math.max(1, Math.ceil(everySeconds / 60));
}

/** Deterministic construct id of a route's or worker's function, e.g. `renderBarcode` → `RenderBarcodeFunction`. */
export function functionIdFor(operationId: string): string {
  return `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}Function`;
}

/** Construct id of a scheduled worker's EventBridge rule, e.g. `sweepImportJobs` → `SweepImportJobsSchedule`. */
export function scheduleIdFor(workerId: string): string {
  return `${workerId.charAt(0).toUpperCase()}${workerId.slice(1)}Schedule`;
}

export interface WorkerQueueProps {
  spec: QueueSpec;
  config: StageConfig;
  /** Prefix of the construct ids, e.g. `Import` → `ImportQueue`, `ImportDeadLetterQueue`, `ImportDeadLetterQueueAlarm`. */
  constructPrefix: string;
  /** What a dead letter means, for the alarm's description, e.g. `Import jobs failed repeatedly`. */
  deadLetterMeaning: string;
}

/** A queue, its dead-letter queue (redrive after `spec.maxReceiveCount` receives) and the alarm on dead letters. */
export class WorkerQueue {
  readonly spec: QueueSpec;
  /** Dashboard title, e.g. `Import queue`. */
  readonly title: string;
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  /** Fires on any visible dead letter (1-minute maximum); named `<prefix>-<deadLetterId>-not-empty`. */
  readonly deadLetterAlarm: Alarm;

  constructor(scope: Construct, props: WorkerQueueProps) {
    const { spec, config, constructPrefix } = props;
    this.spec = spec;
    this.title = `${constructPrefix} queue`;
    this.deadLetterQueue = new Queue(scope, `${constructPrefix}DeadLetterQueue`, {
      queueName: physicalQueueName(config.resourcePrefix, spec.deadLetterId),
      retentionPeriod: Duration.days(spec.deadLetterRetentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: config.removalPolicy,
    });
    this.queue = new Queue(scope, `${constructPrefix}Queue`, {
      queueName: physicalQueueName(config.resourcePrefix, spec.id),
      visibilityTimeout: Duration.seconds(spec.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(spec.messageRetentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.deadLetterQueue, maxReceiveCount: spec.maxReceiveCount },
      removalPolicy: config.removalPolicy,
    });
    this.deadLetterAlarm = new Alarm(scope, `${constructPrefix}DeadLetterQueueAlarm`, {
      alarmName: `${config.resourcePrefix}-${spec.deadLetterId}-not-empty`,
      alarmDescription: `${props.deadLetterMeaning} and were moved to the dead-letter queue.`,
      metric: this.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1), statistic: 'Maximum' }),
      threshold: ALARM_THRESHOLDS.deadLettersVisible,
      comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: TreatMissingData.NOT_BREACHING,
    });
  }
}

export interface WorkerFunctionProps {
  /** The worker's entry of infra/grants.ts. */
  grant: FunctionGrant;
  resources: ApiFunctionResources;
  config: StageConfig;
}

/** The worker's function, after checking its id is free and its grant matches its declared access. */
function workerFunction(scope: Construct, worker: WorkerDefinition, props: WorkerFunctionProps, trigger: string): ApiFunction {
  const functionId = functionIdFor(worker.id);
  if (scope.node.tryFindChild(functionId)) throw new Error(`Worker ${worker.id}: construct id ${functionId} is already taken (a route?).`);
  // The import queue's consumer is checked by its own field; every other queue's through `queues`.
  assertGrantMatchesAccess(
    worker.id,
    props.grant,
    worker.access,
    worker.trigger === 'queue' && worker.queue === 'imports',
    worker.trigger === 'queue' ? worker.queue : undefined,
  );
  return new ApiFunction(scope, functionId, {
    entry: worker.handler,
    grant: props.grant,
    resources: props.resources,
    stage: props.config,
    timeout: Duration.seconds(worker.timeoutSeconds),
    // Capacity API traffic can never take (docs/operations.md#throttling-and-concurrency).
    reservedConcurrentExecutions: worker.trigger === 'queue' ? reservedConcurrencyFor(worker, props.config) : undefined,
    description: `customer-api ${props.config.stage}: ${worker.id} (${trigger})`,
  });
}

/**
 * A queue worker: its function consumes `source.queue` through an event source mapping that
 * reports partial batch failures (`ApiFunction.consumeQueue`); synth fails when the queue's
 * visibility timeout is shorter than 6 × the worker's timeout.
 */
export function addQueueWorker(scope: Construct, worker: QueueWorkerDefinition, source: WorkerQueue, props: WorkerFunctionProps): ApiFunction {
  const fn = workerFunction(scope, worker, props, `SQS ${worker.queue}`);
  assertVisibilityTimeout(worker, source.spec.visibilityTimeoutSeconds);
  fn.consumeQueue(source.queue, { batchSize: worker.batchSize, maxConcurrency: worker.maxConcurrency });
  return fn;
}

/**
 * A scheduled worker: an EventBridge rule invoking it every `everySeconds` (rounded up to whole
 * minutes). No retries beyond EventBridge's delivery retries: the next tick is the retry, and a
 * tick older than one period is dropped instead of piling onto the next one.
 */
export function addScheduledWorker(scope: Construct, worker: ScheduledWorkerDefinition, props: WorkerFunctionProps): { fn: ApiFunction; rule: Rule } {
  const minutes = scheduleRateMinutes(worker.everySeconds);
  const fn = workerFunction(scope, worker, props, `every ${minutes} min`);
  fn.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(minutes) });
  const rule = new Rule(scope, scheduleIdFor(worker.id), {
    description: `customer-api ${props.config.stage}: runs ${worker.id} every ${minutes} min`,
    schedule: Schedule.rate(Duration.minutes(minutes)),
    targets: [new LambdaFunction(fn.function, { retryAttempts: 2, maxEventAge: Duration.minutes(minutes) })],
  });
  return { fn, rule };
}

/** Iterator age of a stream worker's mapping above this (ms, 1-minute maximum) means it falls behind. */
export const STREAM_ITERATOR_AGE_ALARM_MS = 60_000;

/**
 * A stream worker: its function reads `table`'s stream through an event source mapping (from the
 * latest record, in order per shard) that bisects a failing batch, retries it `maxRetries` times
 * and sends what still fails to `onFailure` (a dead-letter queue, whose alarm fires on any). Only
 * records that match `filter` invoke it. An alarm watches the mapping's iterator age.
 */
export function addStreamWorker(
  scope: Construct,
  worker: StreamWorkerDefinition,
  source: { table: ITable; onFailure: Queue; filter: StreamWorkerDefinition['filter'] },
  props: WorkerFunctionProps,
): { fn: ApiFunction; iteratorAgeAlarm: Alarm } {
  const fn = workerFunction(scope, worker, props, `stream of ${worker.table}`);
  const streamArn = source.table.tableStreamArn;
  if (!streamArn) throw new Error(`Worker ${worker.id}: table '${worker.table}' has no stream (set 'stream' in its spec).`);
  // What the mapping calls with the function's role: the stream, and the on-failure queue.
  fn.allow(new PolicyStatement({ actions: ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator'], resources: [streamArn] }));
  fn.allow(new PolicyStatement({ actions: ['dynamodb:ListStreams'], resources: [`${source.table.tableArn}/stream/*`] }));
  // SqsDlq grants the role sqs:SendMessage, GetQueueAttributes and GetQueueUrl on the on-failure queue itself.
  const mapping = fn.function.addEventSourceMapping(`${worker.id}StreamSource`, {
    eventSourceArn: streamArn,
    startingPosition: StartingPosition.LATEST,
    batchSize: worker.batchSize,
    maxBatchingWindow: Duration.seconds(worker.maxBatchingWindowSeconds),
    bisectBatchOnError: true,
    retryAttempts: worker.maxRetries,
    onFailure: new SqsDlq(source.onFailure),
    filters: [FilterCriteria.filter(source.filter as unknown as Record<string, unknown>)],
  });
  mapping.node.addDependency(fn.role);
  const iteratorAgeAlarm = new Alarm(scope, `${functionIdFor(worker.id)}IteratorAgeAlarm`, {
    alarmName: `${props.config.resourcePrefix}-${worker.id}-iterator-age`,
    alarmDescription: `${worker.id} falls behind the ${worker.table} stream (its oldest unprocessed record is over ${STREAM_ITERATOR_AGE_ALARM_MS / 1000} s old).`,
    metric: fn.function.metric('IteratorAge', { period: Duration.minutes(1), statistic: 'Maximum' }),
    threshold: STREAM_ITERATOR_AGE_ALARM_MS,
    comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
    evaluationPeriods: 5,
    treatMissingData: TreatMissingData.NOT_BREACHING,
  });
  return { fn, iteratorAgeAlarm };
}
