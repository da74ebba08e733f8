import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, Names } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyDocument, PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import type { EventSourceMapping } from 'aws-cdk-lib/aws-lambda';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import type { IKey } from 'aws-cdk-lib/aws-kms';
import { Construct } from 'constructs';
import { LAMBDA_RUNTIME_NAME } from '../lib/platform/config/runtime.ts';
import { API_KEY_CACHE_ENV } from '../lib/platform/config/api-key-cache.ts';
import { AUTH_FAILURE_LIMIT_ENV } from '../lib/platform/config/auth-failures.ts';
import { CURSOR_SECRET_ARN_ENV } from '../lib/platform/config/cursor-env.ts';
import { BUCKET_ENV_VAR, IMPORT_DLQ_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES, WEBHOOK_KMS_KEY_ENV_VAR } from '../lib/platform/storage/tables.ts';
import type { QueueId, TableId } from '../lib/platform/storage/tables.ts';
import { QUEUES } from '../lib/platform/storage/tables.ts';
import { LAMBDA_BUNDLING } from './bundling.ts';
import { onDemandCommandHooks } from './on-demand-modules.ts';
import { OBJECT_AREA_PREFIXES } from './grants.ts';
import type { DeadLetterCall, FunctionGrant, ObjectArea, ObjectCall, QueueUse, TableGrant, WebhookSecretsCall } from './grants.ts';
import type { StageConfig } from './stages.ts';
import { powertoolsEnvironment } from './powertools-env.ts';

/** CDK's own Runtime object for the declared runtime, so CDK's defaults for it still apply. */
const LAMBDA_RUNTIME = (() => {
  const runtime = Runtime.ALL.find((candidate) => candidate.name === LAMBDA_RUNTIME_NAME);
  if (runtime === undefined) throw new Error(`aws-cdk-lib does not know the Lambda runtime ${LAMBDA_RUNTIME_NAME}`);
  return runtime;
})();

/**
 * THE function construct: every Lambda of the service is an `ApiFunction`, so the
 * runtime, architecture, bundling, logging and environment are decided once, here. Storage
 * access is never granted by hand: `grant*` methods grant exactly the calls of the function's
 * entry in infra/grants.ts AND set the environment variable that tells the code the resource's
 * name, so the two cannot diverge (docs/operations.md#grants).
 */

/** Repository root: `handler` entries in lib/<area>/routes.ts are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_TIMEOUT = Duration.seconds(10);

/** The stack's storage, from which an `ApiFunction` is granted what its `FunctionGrant` says. */
export interface ApiFunctionResources {
  tables: Readonly<Record<TableId, ITable>>;
  bucket: IBucket;
  importQueue: IQueue;
  importDeadLetterQueue: IQueue;
  /** Every queue of lib/platform/storage/tables.ts with its dead-letter queue, by id (grants' `queues`). */
  queues: Readonly<Record<QueueId, { queue: IQueue; deadLetterQueue: IQueue }>>;
  /** Wraps the data keys that seal webhook signing secrets (lib/webhooks/store/webhook-secrets.ts). */
  webhookSecretsKey: IKey;
  /** HMAC key for list cursors. */
  cursorSecret: ISecret;
}

/** The setting that names the cursor secret (lib/platform/config/cursors.ts reads the secret at cold start). */
export const CURSOR_SECRET_ENV_VAR = CURSOR_SECRET_ARN_ENV;

export interface ApiFunctionProps {
  /** Entry file relative to the repository root (a route's `handler`); it exports `handler`. */
  entry: string;
  /** The calls this function may make (its entry in infra/grants.ts); nothing else is granted. */
  grant: FunctionGrant;
  resources: ApiFunctionResources;
  stage: StageConfig;
  description?: string;
  /** @default 512 */
  memorySize?: number;
  /** @default 10 seconds */
  timeout?: Duration;
  /** Executions reserved for this function (and its ceiling); @default none, the account's pool */
  reservedConcurrentExecutions?: number;
  /** Shell commands around esbuild, e.g. files copied into the asset (infra/reference-docs.ts); @default none */
  commandHooks?: ICommandHooks;
}

/**
 * Synth must never fall back to Docker bundling (no Docker on developer machines or CI): the
 * project's own esbuild (a devDependency) is what NodejsFunction runs. Fail loudly if it is
 * missing instead of letting aws-cdk-lib try to build a Docker image.
 */
function assertLocalEsbuild(): void {
  try {
    createRequire(import.meta.url).resolve('esbuild/package.json');
  } catch {
    throw new Error('esbuild is not installed in node_modules; install devDependencies (no Docker bundling here).');
  }
}

export class ApiFunction extends Construct {
  readonly function: NodejsFunction;
  readonly role: Role;
  readonly logGroup: LogGroup;
  /**
   * The role's one inline policy: every grant goes here, not to a separate AWS::IAM::Policy, so a
   * function costs the stack one resource fewer (CloudFormation allows 500 per stack), and the
   * role exists with its permissions before anything that depends on it.
   */
  private readonly access = new PolicyDocument();

  constructor(scope: Construct, id: string, props: ApiFunctionProps) {
    super(scope, id);
    assertLocalEsbuild();
    const { stage } = props;

    this.logGroup = new LogGroup(this, 'Logs', {
      retention: stage.logRetention,
      removalPolicy: stage.removalPolicy,
    });

    // Own role instead of the default one with the AWSLambdaBasicExecutionRole managed policy
    // (logs:* on every log group): the function may write to its own log group, nothing more.
    this.role = new Role(this, 'Role', {
      assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
      description: `Execution role of ${this.node.path}`,
      inlinePolicies: { access: this.access },
    });
    this.allow(new PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [this.logGroup.logGroupArn] }));

    this.function = new NodejsFunction(this, 'Resource', {
      entry: join(REPO_ROOT, props.entry),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
      timeout: props.timeout ?? DEFAULT_TIMEOUT,
      reservedConcurrentExecutions: props.reservedConcurrentExecutions,
      description: props.description,
      role: this.role,
      logGroup: this.logGroup,
      // X-Ray off: it would grant xray:Put* on "*" to every function and add per-request cost;
      // requests are correlated by the trace id the Middy chain puts in logs and responses.
      tracing: Tracing.DISABLED,
      environment: {
        NODE_OPTIONS: '--enable-source-maps',
        STAGE: stage.stage,
        RATE_LIMIT_GENERAL_PER_MINUTE: String(stage.generalRateLimitPerMinute),
        RATE_LIMIT_SUBMISSION_PER_MINUTE: String(stage.submissionRateLimitPerMinute),
        [API_KEY_CACHE_ENV]: String(stage.apiKeyCacheSeconds),
        [AUTH_FAILURE_LIMIT_ENV]: String(stage.authFailureLimitPerMinute),
        ...powertoolsEnvironment(stage),
      },
      bundling: {
        // infra/bundling.ts decides these once; bench/bundle-sizes.ts and test/infra build with them too.
        format: LAMBDA_BUNDLING.format === 'esm' ? OutputFormat.ESM : OutputFormat.CJS,
        target: LAMBDA_BUNDLING.target,
        minify: LAMBDA_BUNDLING.minify,
        sourceMap: LAMBDA_BUNDLING.sourceMap,
        sourcesContent: LAMBDA_BUNDLING.sourcesContent,
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        banner: LAMBDA_BUNDLING.banner,
        esbuildArgs: { ...LAMBDA_BUNDLING.esbuildArgs },
        // The AWS SDK v3 is BUNDLED, not left external to use the copy in the Lambda runtime:
        // package.json pins exact @aws-sdk/* versions and the code is tested against those; the
        // runtime's copy changes whenever AWS updates the image, without a deploy of ours.
        // Bundling (tree-shaken, minified) costs a little cold-start size for reproducibility.
        bundleAwsSDK: true,
        forceDockerBundling: false,
        logLevel: LogLevel.WARNING,
        // An entry with on-demand modules (infra/on-demand-modules.ts) gets them built into its asset.
        commandHooks: onDemandCommandHooks(props.entry, props.commandHooks),
      },
    });

    this.grantAccess(props.grant, props.resources);
  }

  /** Adds a statement to the role's inline policy. */
  allow(statement: PolicyStatement): void {
    this.access.addStatements(statement);
  }

  /**
   * Grants everything `grant` lists, and only that. Consuming the import queue is granted by
   * `consumeQueue`, which also creates the event source mapping.
   */
  grantAccess(grant: FunctionGrant, resources: ApiFunctionResources): void {
    for (const [id, tableGrant] of Object.entries(grant.tables) as [TableId, TableGrant][]) this.grantTable(id, resources.tables[id], tableGrant);
    for (const [area, calls] of Object.entries(grant.objects ?? {}) as [ObjectArea, ObjectCall[]][]) this.grantObjects(resources.bucket, area, calls);
    for (const area of grant.listObjects ?? []) this.grantListObjects(resources.bucket, area);
    if (grant.importQueue?.includes('send')) this.grantImportQueueSend(resources.importQueue);
    if (grant.importDeadLetterQueue) this.grantDeadLetterQueue(resources.importDeadLetterQueue, grant.importDeadLetterQueue);
    for (const [id, uses] of Object.entries(grant.queues ?? {}) as [QueueId, QueueUse[]][]) {
      if (uses.includes('send')) this.grantQueueSend(id, resources.queues[id].queue);
    }
    for (const [id, deadLetterCalls] of Object.entries(grant.deadLetterQueues ?? {}) as [QueueId, DeadLetterCall[]][]) {
      this.grantQueueDeadLetters(id, resources.queues[id].deadLetterQueue, deadLetterCalls);
    }
    if (grant.cursorSecret) this.grantCursorSecret(resources.cursorSecret);
    if (grant.webhookSecrets) this.grantWebhookSecrets(resources.webhookSecretsKey, grant.webhookSecrets);
  }

  /** Exactly `calls` on the webhook secrets key + `WEBHOOK_KMS_KEY_ENV_VAR` (its ARN). */
  grantWebhookSecrets(key: IKey, calls: readonly WebhookSecretsCall[]): void {
    this.allow(new PolicyStatement({ actions: calls.map((call) => `kms:${call}`), resources: [key.keyArn] }));
    this.function.addEnvironment(WEBHOOK_KMS_KEY_ENV_VAR, key.keyArn);
  }

  /** Exactly `calls` on the objects of one area (`<bucket>/<prefix>*`) + `BUCKET_ENV_VAR`. */
  grantObjects(bucket: IBucket, area: ObjectArea, calls: readonly ObjectCall[]): void {
    if (calls.length > 0) {
      const objects = bucket.arnForObjects(`${OBJECT_AREA_PREFIXES[area]}*`);
      this.allow(new PolicyStatement({ actions: calls.map((call) => `s3:${call}`), resources: [objects] }));
    }
    this.function.addEnvironment(BUCKET_ENV_VAR, bucket.bucketName);
  }

  /** `s3:ListBucket` for keys under one area's prefix only + `BUCKET_ENV_VAR`. */
  grantListObjects(bucket: IBucket, area: ObjectArea): void {
    this.allow(
      new PolicyStatement({
        actions: ['s3:ListBucket'],
        resources: [bucket.bucketArn],
        conditions: { StringLike: { 's3:prefix': [`${OBJECT_AREA_PREFIXES[area]}*`] } },
      }),
    );
    this.function.addEnvironment(BUCKET_ENV_VAR, bucket.bucketName);
  }

  /**
   * The cursor secret's ARN and `GetSecretValue` on that secret alone: the key itself never sits
   * in the function's configuration; the function reads it at cold start and every few minutes
   * after (docs/operations.md#cursor-secret).
   */
  grantCursorSecret(secret: ISecret): void {
    this.allow(new PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }));
    this.function.addEnvironment(CURSOR_SECRET_ENV_VAR, secret.secretArn);
  }

  /**
   * Exactly the listed calls on one table, Query on the listed indexes (each index's own ARN),
   * + its `spec.envVar`. A grant without calls sets the name alone (docs/operations.md#grants).
   */
  grantTable(id: TableId, table: ITable, grant: TableGrant): void {
    if (grant.calls.length > 0) {
      this.allow(new PolicyStatement({ actions: grant.calls.map((call) => `dynamodb:${call}`), resources: [table.tableArn] }));
    }
    const indexes = grant.queryIndexes ?? [];
    if (indexes.length > 0) {
      this.allow(new PolicyStatement({ actions: ['dynamodb:Query'], resources: indexes.map((index) => `${table.tableArn}/index/${index}`) }));
    }
    this.function.addEnvironment(TABLES[id].envVar, table.tableName);
  }

  /**
   * Makes the function the consumer of `queue` (docs/operations.md "Workers"): an event source mapping that
   * reports partial batch failures (`batchItemFailures`), capped at `maxConcurrency` concurrent
   * invocations, plus what the mapping calls with the function's role (receive, delete, the
   * queue's attributes) on that queue only. No environment variable: the mapping, not the code,
   * talks to the queue.
   */
  consumeQueue(queue: IQueue, options: { batchSize: number; maxConcurrency: number }): EventSourceMapping {
    const { batchSize, maxConcurrency } = options;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
      throw new Error(`${this.node.path}: batchSize must be an integer in 1..10 (no batching window), got ${batchSize}.`);
    }
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 2 || maxConcurrency > 1000) {
      throw new Error(`${this.node.path}: maxConcurrency of an SQS event source must be an integer in 2..1000, got ${maxConcurrency}.`);
    }
    // The policy before the mapping: AWS checks the role's permissions when it creates the mapping.
    const consume = new PolicyStatement({
      actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes'],
      resources: [queue.queueArn],
    });
    this.allow(consume);
    // The id CDK's SqsEventSource gives its mapping: a deployed mapping keeps its logical id.
    const mapping = this.function.addEventSourceMapping(`SqsEventSource:${Names.nodeUniqueId(queue.node)}`, {
      eventSourceArn: queue.queueArn,
      batchSize,
      maxConcurrency,
      reportBatchItemFailures: true,
    });
    mapping.node.addDependency(this.role);
    return mapping;
  }

  /** sqs:SendMessage on the import queue (the SDK is given the URL: no GetQueueUrl) + `IMPORT_QUEUE_ENV_VAR`. */
  grantImportQueueSend(queue: IQueue): void {
    this.allow(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    this.function.addEnvironment(IMPORT_QUEUE_ENV_VAR, queue.queueUrl);
  }

  /** sqs:SendMessage on a queue of QUEUES + its `envVar`. */
  grantQueueSend(id: QueueId, queue: IQueue): void {
    this.allow(new PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }));
    this.function.addEnvironment(QUEUES[id].envVar, queue.queueUrl);
  }

  /** Exactly `calls` on a queue's dead-letter queue + its `deadLetterEnvVar`. */
  grantQueueDeadLetters(id: QueueId, queue: IQueue, calls: readonly DeadLetterCall[]): void {
    this.allow(new PolicyStatement({ actions: calls.map((call) => `sqs:${call}`), resources: [queue.queueArn] }));
    this.function.addEnvironment(QUEUES[id].deadLetterEnvVar, queue.queueUrl);
  }

  /** Exactly `calls` on the dead-letter queue + `IMPORT_DLQ_ENV_VAR`. */
  grantDeadLetterQueue(queue: IQueue, calls: readonly DeadLetterCall[]): void {
    this.allow(new PolicyStatement({ actions: calls.map((call) => `sqs:${call}`), resources: [queue.queueArn] }));
    this.function.addEnvironment(IMPORT_DLQ_ENV_VAR, queue.queueUrl);
  }
}
