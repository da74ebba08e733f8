import { CfnOutput, Stack, Tags } from 'aws-cdk-lib';
import type { App, StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import { HttpApi, HttpMethod, LogGroupLogDestination } from 'aws-cdk-lib/aws-apigatewayv2';
import type { HttpStage } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Dashboard } from 'aws-cdk-lib/aws-cloudwatch';
import { AttributeType, BillingMode, ProjectionType, StreamViewType, Table, TableEncryption } from 'aws-cdk-lib/aws-dynamodb';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Alarm, ComparisonOperator, Metric, TreatMissingData } from 'aws-cdk-lib/aws-cloudwatch';
import { Duration } from 'aws-cdk-lib';
import type { Rule } from 'aws-cdk-lib/aws-events';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { Bucket } from 'aws-cdk-lib/aws-s3';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import type { Construct } from 'constructs';
import { ROUTES, resourcesFor } from '../lib/app/routes.ts';
import type { ResourceAccess, RouteDefinition } from '../lib/platform/contracts/route-types.ts';
import { BUILD_QUEUE, EXPORT_QUEUE, IMPORT_QUEUE, QUEUES, TABLE_IDS, TABLES, WEBHOOK_QUEUE, physicalTableName } from '../lib/platform/storage/tables.ts';
import type { KeyAttribute, QueueId, TableId, TableSpec } from '../lib/platform/storage/tables.ts';
import { WORKERS } from '../lib/app/workers.ts';
import type { WorkerDefinition } from '../lib/app/workers.ts';
import { ApiFunction } from './api-function.ts';
import { API_INVOKE_ROLE_ID, ApiInvokeRole } from './api-invoke-role.ts';
import { WorkerQueue, addQueueWorker, addScheduledWorker, addStreamWorker, functionIdFor } from './background-flow.ts';
import type { ApiFunctionResources } from './api-function.ts';
import { createFilesBuckets } from './files-bucket.ts';
import { FALLBACK_GRANT, assertGrantMatchesAccess, routeGrant, workerGrant } from './grants.ts';
import type { FunctionGrant } from './grants.ts';
import { applyNagSuppressions } from './nag-suppressions.ts';
import { createAlarms, createDashboard } from './observability.ts';
import { metricsNamespaceFor, SERVICE_NAME } from '../lib/platform/config/observability.ts';
import { addReferenceDocs } from './reference-docs.ts';
import type { StageAlarms } from './observability.ts';
import { resolveStageConfig, stackNameFor } from './stages.ts';
import type { StageConfig } from './stages.ts';
import { stageThrottle } from './throttling.ts';

// Moved to infra/background-flow.ts; still exported here, where the stack's users and tests look.
export { VISIBILITY_TIMEOUT_FACTOR, assertVisibilityTimeout, functionIdFor, scheduleIdFor, scheduleRateMinutes } from './background-flow.ts';

/**
 * One stack per stage: the DynamoDB tables of lib/platform/storage/tables.ts, the files bucket, the
 * background flows' queues and workers (infra/background-flow.ts, lib/app/workers.ts), and the HTTP API with one Lambda per route of lib/app/routes.ts plus a `$default`
 * fallback and the API reference's `/docs` routes, each function granted its entry of infra/grants.ts; the stage's alarms and dashboard.
 * Reads only definition modules (routes, table specs), never runtime code.
 */

/** Entry of the `$default` route's Lambda (problem document 404 for unknown routes). */
export const FALLBACK_HANDLER = 'functions/http/fallback/not-found.ts';
/** The fallback answers 404 without touching storage. */
export const FALLBACK_ACCESS: ResourceAccess = { tables: {} };
export const FALLBACK_FUNCTION_ID = 'NotFoundFunction';

/** Construct id of a table, e.g. `rate-limits` → `RateLimitsTable`. */
export function tableIdFor(id: TableId): string {
  return `${id
    .split('-')
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('')}Table`;
}

/**
 * The infra side of each queue of lib/platform/storage/tables.ts: construct ids (`Import` keeps the ids the
 * import queue was deployed with) and what a dead letter means, for its alarm.
 */
export const QUEUE_FLOWS: Readonly<Record<QueueId, { constructPrefix: string; deadLetterMeaning: string }>> = {
  [IMPORT_QUEUE.id]: { constructPrefix: 'Import', deadLetterMeaning: 'Import jobs failed repeatedly' },
  [EXPORT_QUEUE.id]: { constructPrefix: 'Export', deadLetterMeaning: 'Export jobs failed repeatedly' },
  [WEBHOOK_QUEUE.id]: { constructPrefix: 'Webhook', deadLetterMeaning: 'Webhook delivery messages or dispatcher stream batches failed repeatedly' },
  [BUILD_QUEUE.id]: { constructPrefix: 'Build', deadLetterMeaning: 'Build jobs failed repeatedly' },
};

/** Failed webhook attempts in 5 minutes above which the stage alarms (receivers down, or our sending broken). */
export const WEBHOOK_FAILED_ATTEMPTS_ALARM = 100;

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
  /** The queues of lib/platform/storage/tables.ts with their DLQs and dead-letter alarms, by queue id. */
  readonly workerQueues: Readonly<Record<QueueId, WorkerQueue>>;
  readonly importQueue: Queue;
  readonly importDeadLetterQueue: Queue;
  readonly httpApi: HttpApi;
  readonly apiStage: HttpStage;
  readonly apiAccessLogs: LogGroup;
  /** The one role API Gateway invokes the HTTP functions with (infra/api-invoke-role.ts). */
  readonly apiInvokeRole: ApiInvokeRole;
  readonly alarms: StageAlarms;
  readonly dashboard: Dashboard;
  /** Route functions by operationId. */
  readonly routeFunctions: ReadonlyMap<string, ApiFunction>;
  readonly fallbackFunction: ApiFunction;
  /** The public API reference on `GET /docs…` (infra/reference-docs.ts). */
  readonly referenceDocsFunction: ApiFunction;
  /** Worker functions (lib/app/workers.ts) by worker id. */
  readonly workerFunctions: ReadonlyMap<string, ApiFunction>;
  /** EventBridge rules of the scheduled workers, by worker id. */
  readonly workerSchedules: ReadonlyMap<string, Rule>;
  /** Wraps the data keys of webhook signing secrets. */
  readonly webhookSecretsKey: Key;
  /** Iterator age of the stream workers, and failed webhook attempts. */
  readonly webhookAlarms: Alarm[] = [];

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

    // One queue + DLQ + alarm per queue of lib/platform/storage/tables.ts (infra/background-flow.ts).
    const workerQueues = {} as Record<QueueId, WorkerQueue>;
    for (const queueId of Object.keys(QUEUE_FLOWS) as QueueId[]) {
      workerQueues[queueId] = new WorkerQueue(this, { config, spec: QUEUES[queueId], ...QUEUE_FLOWS[queueId] });
    }
    this.workerQueues = workerQueues;
    this.importQueue = workerQueues[IMPORT_QUEUE.id].queue;
    this.importDeadLetterQueue = workerQueues[IMPORT_QUEUE.id].deadLetterQueue;

    // The import worker and the sweeper (lib/app/workers.ts) are created after the routes, below.

    this.webhookSecretsKey = new Key(this, 'WebhookSecretsKey', {
      description: `customer-api ${config.stage}: wraps the data keys that seal webhook signing secrets`,
      enableKeyRotation: true,
      removalPolicy: config.removalPolicy,
    });

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
      queues: workerQueues,
      cursorSecret,
      webhookSecretsKey: this.webhookSecretsKey,
    };

    assertGrantMatchesAccess('$default', FALLBACK_GRANT, FALLBACK_ACCESS);
    this.fallbackFunction = new ApiFunction(this, FALLBACK_FUNCTION_ID, {
      entry: FALLBACK_HANDLER,
      grant: FALLBACK_GRANT,
      resources,
      stage: config,
      description: `customer-api ${config.stage}: $default route (404 problem document)`,
    });

    // Every integration calls its function with this role: no per-route AWS::Lambda::Permission.
    const invoke = new ApiInvokeRole(this, API_INVOKE_ROLE_ID, {
      description: `customer-api ${config.stage}: API Gateway invokes the HTTP API's functions with this role`,
    });
    this.apiInvokeRole = invoke;
    this.httpApi = new HttpApi(this, 'HttpApi', {
      apiName: config.resourcePrefix,
      description: `Customer API (${config.stage})`,
      createDefaultStage: false,
      defaultIntegration: invoke.integrationFor('NotFoundIntegration', this.fallbackFunction.function),
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
        integration: invoke.integrationFor(`${functionIdFor(route.operationId)}Integration`, fn.function),
      });
    }
    this.routeFunctions = routeFunctions;
    this.referenceDocsFunction = addReferenceDocs(this, this.httpApi, { resources, stage: config, invoke });

    // ── Workers (lib/app/workers.ts): SQS consumers and scheduled functions ───────────────────────
    const workerFunctions = new Map<string, ApiFunction>();
    const workerSchedules = new Map<string, Rule>();
    for (const worker of props.workers ?? WORKERS) {
      const workerProps = { grant: workerGrant(worker.id, props.grants?.workers), resources, config };
      if (worker.trigger === 'queue') {
        workerFunctions.set(worker.id, addQueueWorker(this, worker, workerQueues[worker.queue], workerProps));
      } else if (worker.trigger === 'stream') {
        const source = { table: tables[worker.table], onFailure: workerQueues[worker.onFailureQueue].deadLetterQueue, filter: worker.filter };
        const { fn, iteratorAgeAlarm } = addStreamWorker(this, worker, source, workerProps);
        workerFunctions.set(worker.id, fn);
        this.webhookAlarms.push(iteratorAgeAlarm);
      } else {
        const { fn, rule } = addScheduledWorker(this, worker, workerProps);
        workerFunctions.set(worker.id, fn);
        workerSchedules.set(worker.id, rule);
      }
    }
    this.workerFunctions = workerFunctions;
    this.workerSchedules = workerSchedules;
    this.webhookAlarms.push(
      new Alarm(this, 'WebhookFailedAttemptsAlarm', {
        alarmName: `${config.resourcePrefix}-webhook-failed-attempts`,
        alarmDescription: `More than ${WEBHOOK_FAILED_ATTEMPTS_ALARM} webhook attempts failed in 5 minutes (docs/webhooks.md).`,
        metric: new Metric({
          namespace: metricsNamespaceFor(config.stage),
          metricName: 'WebhookAttempts',
          dimensionsMap: { service: SERVICE_NAME, outcome: 'failed' },
          period: Duration.minutes(5),
          statistic: 'Sum',
        }),
        threshold: WEBHOOK_FAILED_ATTEMPTS_ALARM,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 1,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );

    // ── Alarms and dashboard (docs/operations.md#alarms-and-dashboard) ──────────────────────────
    const observed = {
      config,
      apiStage: this.apiStage,
      accessLogs,
      workerQueues: Object.values(workerQueues),
      routeFunctions,
      fallbackFunction: this.fallbackFunction,
      workerFunctions,
      flowAlarms: this.webhookAlarms,
    };
    this.alarms = createAlarms(this, observed);
    this.dashboard = createDashboard(this, observed, this.alarms);

    applyNagSuppressions(this);

    new CfnOutput(this, 'ApiUrl', { value: this.apiStage.url, description: 'Base URL of the customer API.' });
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
      ...(spec.stream ? { stream: StreamViewType[spec.stream] } : {}),
      deletionProtection: this.config.tableDeletionProtection,
      removalPolicy: this.config.removalPolicy,
    });
    for (const index of spec.globalIndexes) {
      table.addGlobalSecondaryIndex({
        indexName: index.indexName,
        partitionKey: attribute(index.partitionKey),
        sortKey: index.sortKey ? attribute(index.sortKey) : undefined,
        projectionType: index.projection === 'KEYS_ONLY' ? ProjectionType.KEYS_ONLY : ProjectionType.ALL,
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
