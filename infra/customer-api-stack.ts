import { CfnOutput, Duration, Stack, Tags } from 'aws-cdk-lib';
import type { App, StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, LogGroupLogDestination, PayloadFormatVersion } from 'aws-cdk-lib/aws-apigatewayv2';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Rule, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction } from 'aws-cdk-lib/aws-events-targets';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ROUTES, resourcesFor } from '../lib/routes/index.ts';
import type { ResourceAccess, RouteDefinition } from '../lib/routes/types.ts';
import { IMPORT_QUEUE, TABLE_IDS, TABLES, physicalQueueName, physicalTableName } from '../lib/store/tables.ts';
import type { KeyAttribute, TableId, TableSpec } from '../lib/store/tables.ts';
import { WORKERS } from '../lib/workers.ts';
import type { QueueWorkerDefinition, ScheduledWorkerDefinition, WorkerDefinition } from '../lib/workers.ts';
import { ApiFunction } from './api-function.ts';
import type { ApiFunctionResources } from './api-function.ts';
import { createFilesBuckets } from './files-bucket.ts';
import { FALLBACK_GRANT, assertGrantMatchesAccess, routeGrant, workerGrant } from './grants.ts';
import type { FunctionGrant } from './grants.ts';
import { applyNagSuppressions } from './nag-suppressions.ts';
import { createAlarms, createDashboard } from './observability.ts';
import { addReferenceDocs } from './reference-docs.ts';
import type { StageAlarms } from './observability.ts';
import { resolveStageConfig, stackNameFor } from './stages.ts';
import type { StageConfig } from './stages.ts';
import { reservedConcurrencyFor, stageThrottle } from './throttling.ts';

/**
 * One stack per stage: the DynamoDB tables of lib/store/tables.ts, the files bucket, the import
 * queue and its DLQ, and the HTTP API with one Lambda per route of lib/routes/index.ts plus a `$default`
 * fallback and the API reference's `/docs` routes, each function granted its entry of infra/grants.ts; the stage's alarms and dashboard.
 * Reads only definition modules (routes, table specs), never runtime code.
 */

/** Entry of the `$default` route's Lambda (problem document 404 for unknown routes). */
export const FALLBACK_HANDLER = 'functions/http/fallback/not-found.ts';
/** The fallback answers 404 without touching storage. */
export const FALLBACK_ACCESS: ResourceAccess = { tables: {} };
export const FALLBACK_FUNCTION_ID = 'NotFoundFunction';

/** Deterministic construct id of a route's function, e.g. `renderBarcode` → `RenderBarcodeFunction`. */
export function functionIdFor(operationId: string): string {
  return `${operationId.charAt(0).toUpperCase()}${operationId.slice(1)}Function`;
}

/** Construct id of a table, e.g. `rate-limits` → `RateLimitsTable`. */
export function tableIdFor(id: TableId): string {
  return `${id
    .split('-')
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('')}Table`;
}

/** Construct id of a scheduled worker's EventBridge rule, e.g. `sweepImportJobs` → `SweepImportJobsSchedule`. */
export function scheduleIdFor(workerId: string): string {
  return `${workerId.charAt(0).toUpperCase()}${workerId.slice(1)}Schedule`;
}

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

export interface CustomerApiStackProps extends StackProps {
  config: StageConfig;
  /** @default ROUTES — injectable so tests can exercise shapes the table does not have yet. */
  routes?: readonly RouteDefinition[];
  /** @default WORKERS — injectable like `routes`. */
  workers?: readonly WorkerDefinition[];
  /** @default the maps of infra/grants.ts — injectable with `routes` and `workers`. */
  grants?: { routes?: Readonly<Record<string, FunctionGrant>>; workers?: Readonly<Record<string, FunctionGrant>> };
}

function attribute(key: KeyAttribute): { name: string; type: AttributeType } {
  return { name: key.name, type: key.type === 'S' ? AttributeType.STRING : AttributeType.NUMBER };
}

export class CustomerApiStack extends Stack {
  readonly config: StageConfig;
  readonly tables: Readonly<Record<TableId, ITable>>;
  readonly filesBucket: Bucket;
  /** Where S3 writes the files bucket's server access logs. */
  readonly accessLogsBucket: Bucket;
  readonly importQueue: Queue;
  readonly importDeadLetterQueue: Queue;
  readonly httpApi: HttpApi;
  readonly apiStage: HttpStage;
  readonly apiAccessLogs: LogGroup;
  readonly alarms: StageAlarms;
  readonly dashboard: Dashboard;
  /** Route functions by operationId. */
  readonly routeFunctions: ReadonlyMap<string, ApiFunction>;
  readonly fallbackFunction: ApiFunction;
  /** The public API reference on `GET /docs…` (infra/reference-docs.ts). */
  readonly referenceDocsFunction: ApiFunction;
  /** Worker functions (lib/workers.ts) by worker id. */
  readonly workerFunctions: ReadonlyMap<string, ApiFunction>;
  /** EventBridge rules of the scheduled workers, by worker id. */
  readonly workerSchedules: ReadonlyMap<string, Rule>;

  constructor(scope: Construct, id: string, props: CustomerApiStackProps) {
    super(scope, id, props);
    const { config } = props;
    this.config = config;
    Tags.of(this).add('service', 'customer-api');
    Tags.of(this).add('stage', config.stage);

    // ── Storage ──────────────────────────────────────────────────────────────────────────────
    const tables = {} as Record<TableId, ITable>;
    for (const tableId of TABLE_IDS) tables[tableId] = this.createTable(TABLES[tableId]);
    this.tables = tables;

    const buckets = createFilesBuckets(this, config);
    this.filesBucket = buckets.files;
    this.accessLogsBucket = buckets.accessLogs;

    this.importDeadLetterQueue = new Queue(this, 'ImportDeadLetterQueue', {
      queueName: physicalQueueName(config.resourcePrefix, IMPORT_QUEUE.deadLetterId),
      retentionPeriod: Duration.days(IMPORT_QUEUE.deadLetterRetentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      removalPolicy: config.removalPolicy,
    });
    this.importQueue = new Queue(this, 'ImportQueue', {
      queueName: physicalQueueName(config.resourcePrefix, IMPORT_QUEUE.id),
      visibilityTimeout: Duration.seconds(IMPORT_QUEUE.visibilityTimeoutSeconds),
      retentionPeriod: Duration.days(IMPORT_QUEUE.messageRetentionDays),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: this.importDeadLetterQueue, maxReceiveCount: IMPORT_QUEUE.maxReceiveCount },
      removalPolicy: config.removalPolicy,
    });

    // The import worker and the sweeper (lib/workers.ts) are created after the routes, below.

    // ── HTTP API ─────────────────────────────────────────────────────────────────────────────
    const cursorSecret = new Secret(this, 'CursorSecret', {
      description: `customer-api ${config.stage}: HMAC key that signs list cursors`,
      generateSecretString: { passwordLength: 48, excludePunctuation: true },
      removalPolicy: config.removalPolicy,
    });
    const resources: ApiFunctionResources = {
      tables: this.tables,
      bucket: this.filesBucket,
      importQueue: this.importQueue,
      importDeadLetterQueue: this.importDeadLetterQueue,
      cursorSecret,
    };

    assertGrantMatchesAccess('$default', FALLBACK_GRANT, FALLBACK_ACCESS);
    this.fallbackFunction = new ApiFunction(this, FALLBACK_FUNCTION_ID, {
      entry: FALLBACK_HANDLER,
      grant: FALLBACK_GRANT,
      resources,
      stage: config,
      description: `customer-api ${config.stage}: $default route (404 problem document)`,
    });

    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: config.resourcePrefix,
      description: `Customer API (${config.stage})`,
      createDefaultStage: false,
      defaultIntegration: new HttpLambdaIntegration('NotFoundIntegration', this.fallbackFunction.function, {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    });

    const accessLogs = new LogGroup(this, 'ApiAccessLogs', {
      retention: config.logRetention,
      removalPolicy: config.removalPolicy,
    });
    this.apiAccessLogs = accessLogs;
    this.apiStage = this.httpApi.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      // All clients together, before any Lambda runs (docs/operations.md#throttling-and-concurrency).
      throttle: stageThrottle(config),
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        format: AccessLogFormat.custom(
          JSON.stringify({
            requestId: '$context.requestId',
            ip: '$context.identity.sourceIp',
            requestTime: '$context.requestTime',
            method: '$context.httpMethod',
            path: '$context.path',
            routeKey: '$context.routeKey',
            status: '$context.status',
            protocol: '$context.protocol',
            responseLength: '$context.responseLength',
            responseLatency: '$context.responseLatency',
            integrationLatency: '$context.integrationLatency',
            integrationError: '$context.integrationErrorMessage',
            userAgent: '$context.identity.userAgent',
          }),
        ),
      },
    });

    const routeFunctions = new Map<string, ApiFunction>();
    for (const route of props.routes ?? ROUTES) {
      const grant = routeGrant(route, props.grants?.routes);
      assertGrantMatchesAccess(route.operationId, grant, resourcesFor(route));
      const fn = new ApiFunction(this, functionIdFor(route.operationId), {
        entry: route.handler,
        grant,
        resources,
        stage: config,
        description: `customer-api ${config.stage}: ${route.operationId} (${route.method} ${route.path})`,
      });
      routeFunctions.set(route.operationId, fn);
      this.httpApi.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${functionIdFor(route.operationId)}Integration`, fn.function, {
          payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
        }),
      });
    }
    this.routeFunctions = routeFunctions;
    this.referenceDocsFunction = addReferenceDocs(this, this.httpApi, { resources, stage: config });

    // ── Workers (lib/workers.ts): SQS consumers and scheduled functions ───────────────────────
    const queues: Record<QueueWorkerDefinition['queue'], { queue: Queue; visibilityTimeoutSeconds: number }> = {
      [IMPORT_QUEUE.id]: { queue: this.importQueue, visibilityTimeoutSeconds: IMPORT_QUEUE.visibilityTimeoutSeconds },
    };
    const workerFunctions = new Map<string, ApiFunction>();
    const workerSchedules = new Map<string, Rule>();
    for (const worker of props.workers ?? WORKERS) {
      const functionId = functionIdFor(worker.id);
      if (this.node.tryFindChild(functionId)) throw new Error(`Worker ${worker.id}: construct id ${functionId} is already taken (a route?).`);
      const grant = workerGrant(worker.id, props.grants?.workers);
      assertGrantMatchesAccess(worker.id, grant, worker.access, worker.trigger === 'queue');
      const fn = new ApiFunction(this, functionId, {
        entry: worker.handler,
        grant,
        resources,
        stage: config,
        timeout: Duration.seconds(worker.timeoutSeconds),
        // Capacity API traffic can never take (docs/operations.md#throttling-and-concurrency).
        reservedConcurrentExecutions: worker.trigger === 'queue' ? reservedConcurrencyFor(worker, config) : undefined,
        description: `customer-api ${config.stage}: ${worker.id} (${worker.trigger === 'queue' ? `SQS ${worker.queue}` : `every ${scheduleRateMinutes(worker.everySeconds)} min`})`,
      });
      workerFunctions.set(worker.id, fn);
      if (worker.trigger === 'queue') {
        const source = queues[worker.queue];
        assertVisibilityTimeout(worker, source.visibilityTimeoutSeconds);
        fn.consumeQueue(source.queue, { batchSize: worker.batchSize, maxConcurrency: worker.maxConcurrency });
      } else {
        workerSchedules.set(worker.id, this.createSchedule(worker, fn));
      }
    }
    this.workerFunctions = workerFunctions;
    this.workerSchedules = workerSchedules;

    // ── Alarms and dashboard (docs/operations.md#alarms-and-dashboard) ──────────────────────────
    const observed = {
      config,
      apiStage: this.apiStage,
      accessLogs,
      importQueue: this.importQueue,
      importDeadLetterQueue: this.importDeadLetterQueue,
      routeFunctions,
      fallbackFunction: this.fallbackFunction,
      workerFunctions,
    };
    this.alarms = createAlarms(this, observed);
    this.dashboard = createDashboard(this, observed, this.alarms);

    applyNagSuppressions(this);

    new CfnOutput(this, 'ApiUrl', { value: this.apiStage.url, description: 'Base URL of the customer API.' });
  }

  /**
   * An EventBridge rule invoking the worker every `everySeconds` (rounded up to whole minutes).
   * No retries beyond EventBridge's delivery retries: the next tick is the retry, and a tick
   * older than one period is dropped instead of piling onto the next one.
   */
  private createSchedule(worker: ScheduledWorkerDefinition, fn: ApiFunction): Rule {
    const minutes = scheduleRateMinutes(worker.everySeconds);
    fn.function.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(minutes) });
    return new Rule(this, scheduleIdFor(worker.id), {
      description: `customer-api ${this.config.stage}: runs ${worker.id} every ${minutes} min`,
      schedule: Schedule.rate(Duration.minutes(minutes)),
      targets: [new LambdaFunction(fn.function, { retryAttempts: 2, maxEventAge: Duration.minutes(minutes) })],
    });
  }

  private createTable(spec: TableSpec): Table {
    const table = new Table(this, tableIdFor(spec.id), {
      tableName: physicalTableName(this.config.resourcePrefix, spec.id),
      partitionKey: attribute(spec.partitionKey),
      sortKey: spec.sortKey ? attribute(spec.sortKey) : undefined,
      billingMode: BillingMode.PAY_PER_REQUEST,
      pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
      encryption: TableEncryption.AWS_MANAGED,
      timeToLiveAttribute: spec.ttlAttribute,
      deletionProtection: this.config.tableDeletionProtection,
      removalPolicy: this.config.removalPolicy,
    });
    for (const index of spec.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: index.sortKey ? attribute(index.sortKey) : undefined,
        projectionType: ProjectionType.ALL,
      });
    }
    return table;
  }
}

/** Builds the stage's stack in `app` from its context (`-c stage=…` and the overrides). */
export function createCustomerApiStack(app: App): CustomerApiStack {
  const config = resolveStageConfig((key) => app.node.tryGetContext(key));
  return new CustomerApiStack(app, stackNameFor(config.stage), {
    config,
    description: `Customer API of the inventory service, stage ${config.stage}.`,
  });
}
