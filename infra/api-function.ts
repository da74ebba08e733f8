import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement, Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { LogLevel, NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup } from 'aws-cdk-lib/aws-logs';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import type { ISecret } from 'aws-cdk-lib/aws-secretsmanager';
import { Construct } from 'constructs';
import { LAMBDA_RUNTIME_NAME } from '../lib/config/runtime.ts';
import { ATTACHMENT_OBJECT_PREFIX } from '../lib/domain/attachments/attachment.ts';
import type { ResourceAccess, TableAccess } from '../lib/routes.ts';
import { BUCKET_ENV_VAR, IMPORT_DLQ_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES } from '../lib/store/tables.ts';
import type { TableId } from '../lib/store/tables.ts';
import { LAMBDA_BUNDLING } from './bundling.ts';
import type { StageConfig } from './stages.ts';


/** CDK's own Runtime object for the declared runtime, so CDK's defaults for it still apply. */
const LAMBDA_RUNTIME = (() => {
  const runtime = Runtime.ALL.find((candidate) => candidate.name === LAMBDA_RUNTIME_NAME);
  if (runtime === undefined) throw new Error(`aws-cdk-lib does not know the Lambda runtime ${LAMBDA_RUNTIME_NAME}`);
  return runtime;
})();

/**
 * THE function construct: every Lambda of the service is an `ApiFunction`, so the
 * runtime, architecture, bundling, logging and environment are decided once, here. Storage
 * access is never granted by hand: `grant*` methods grant the least privilege for an access
 * level AND set the environment variable that tells the code the resource's name, so the two
 * cannot diverge.
 */

/** Repository root: `handler` entries in lib/routes.ts are relative to it. */
export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

export const DEFAULT_MEMORY_MB = 512;
export const DEFAULT_TIMEOUT = Duration.seconds(10);

/** The stack's storage, from which an `ApiFunction` is granted what its `ResourceAccess` says. */
export interface ApiFunctionResources {
  tables: Readonly<Record<TableId, ITable>>;
  bucket: IBucket;
  importQueue: IQueue;
  importDeadLetterQueue: IQueue;
  /** HMAC key for list cursors. */
  cursorSecret: ISecret;
}

/** The setting that carries the cursor signing key (lib/config/cursors.ts reads it). */
export const CURSOR_SECRET_ENV_VAR = 'CURSOR_SECRET';

export interface ApiFunctionProps {
  /** Entry file relative to the repository root (a route's `handler`); it exports `handler`. */
  entry: string;
  /** Storage this function may touch; nothing else is granted. */
  access: ResourceAccess;
  resources: ApiFunctionResources;
  stage: StageConfig;
  description?: string;
  /** @default 512 */
  memorySize?: number;
  /** @default 10 seconds */
  timeout?: Duration;
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
    });
    this.logGroup.grantWrite(this.role);

    this.function = new NodejsFunction(this, 'Resource', {
      entry: join(REPO_ROOT, props.entry),
      handler: 'handler',
      projectRoot: REPO_ROOT,
      depsLockFilePath: join(REPO_ROOT, 'package-lock.json'),
      runtime: LAMBDA_RUNTIME,
      architecture: Architecture.ARM_64,
      memorySize: props.memorySize ?? DEFAULT_MEMORY_MB,
      timeout: props.timeout ?? DEFAULT_TIMEOUT,
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
      },
    });

    this.grantAccess(props.access, props.resources);
  }

  /** Grants everything `access` lists, and only that. */
  grantAccess(access: ResourceAccess, resources: ApiFunctionResources): void {
    for (const [id, level] of Object.entries(access.tables) as [TableId, TableAccess | undefined][]) {
      if (level) this.grantTable(id, resources.tables[id], level);
    }
    if (access.bucket) this.grantBucket(resources.bucket, access.bucket);
    if (access.importQueue === 'send') this.grantImportQueueSend(resources.importQueue);
    if (access.importDeadLetterQueue === 'consume') this.grantDeadLetterConsume(resources.importDeadLetterQueue);
    if (access.cursorSecret) this.grantCursorSecret(resources.cursorSecret);
    if (access.attachmentObjects) this.grantAttachmentObjects(resources.bucket, access.attachmentObjects);
  }

  /** Exactly one kind of object action, on the attachments prefix only, + `BUCKET_ENV_VAR`. */
  grantAttachmentObjects(bucket: IBucket, level: NonNullable<ResourceAccess['attachmentObjects']>): void {
    const objects = `${ATTACHMENT_OBJECT_PREFIX}*`;
    switch (level) {
      case 'put':
        bucket.grantPut(this.function, objects);
        break;
      case 'get':
        this.function.addToRolePolicy(new PolicyStatement({ actions: ['s3:GetObject'], resources: [bucket.arnForObjects(objects)] }));
        break;
      case 'delete':
        bucket.grantDelete(this.function, objects);
        break;
      case 'list-delete':
        this.function.addToRolePolicy(
          new PolicyStatement({ actions: ['s3:ListBucket'], resources: [bucket.bucketArn], conditions: { StringLike: { 's3:prefix': [objects] } } }),
        );
        bucket.grantDelete(this.function, objects);
        break;
    }
    this.function.addEnvironment(BUCKET_ENV_VAR, bucket.bucketName);
  }

  /**
   * The cursor key as a CloudFormation dynamic reference, resolved at deploy time: no
   * Secrets Manager call on cold start and no IAM grant. The value is visible to whoever may read
   * the function's configuration; it only protects cursors against tampering, and tenant
   * binding never relies on it (the organization always comes from the API key).
   */
  grantCursorSecret(secret: ISecret): void {
    this.function.addEnvironment(CURSOR_SECRET_ENV_VAR, secret.secretValue.unsafeUnwrap());
  }

  /** Data-plane access to one table (its indexes included) + its `spec.envVar`. */
  grantTable(id: TableId, table: ITable, level: TableAccess): void {
    switch (level) {
      case 'read':
        table.grantReadData(this.function);
        break;
      case 'write':
        table.grantWriteData(this.function);
        break;
      case 'read-write':
        table.grantReadWriteData(this.function);
        break;
    }
    this.function.addEnvironment(TABLES[id].envVar, table.tableName);
  }

  /** Object access to the files bucket + `BUCKET_ENV_VAR`. */
  grantBucket(bucket: IBucket, level: 'read' | 'write' | 'read-write'): void {
    switch (level) {
      case 'read':
        bucket.grantRead(this.function);
        break;
      case 'write':
        bucket.grantPut(this.function);
        bucket.grantDelete(this.function);
        break;
      case 'read-write':
        bucket.grantReadWrite(this.function);
        break;
    }
    this.function.addEnvironment(BUCKET_ENV_VAR, bucket.bucketName);
  }

  /**
   * Makes the function the consumer of `queue` (docs/operations.md "Workers"): an event source mapping that
   * reports partial batch failures (`batchItemFailures`), capped at `maxConcurrency` concurrent
   * invocations, plus the consume grant (receive, delete, change visibility, attributes) on that
   * queue only. No environment variable: the mapping, not the code, talks to the queue.
   */
  consumeQueue(queue: IQueue, options: { batchSize: number; maxConcurrency: number }): SqsEventSource {
    const { batchSize, maxConcurrency } = options;
    if (!Number.isInteger(batchSize) || batchSize < 1 || batchSize > 10) {
      throw new Error(`${this.node.path}: batchSize must be an integer in 1..10 (no batching window), got ${batchSize}.`);
    }
    if (!Number.isInteger(maxConcurrency) || maxConcurrency < 2 || maxConcurrency > 1000) {
      throw new Error(`${this.node.path}: maxConcurrency of an SQS event source must be an integer in 2..1000, got ${maxConcurrency}.`);
    }
    queue.grantConsumeMessages(this.function);
    const source = new SqsEventSource(queue, { batchSize, maxConcurrency, reportBatchItemFailures: true });
    this.function.addEventSource(source);
    return source;
  }

  /** sqs:SendMessage on the import queue + `IMPORT_QUEUE_ENV_VAR`. */
  grantImportQueueSend(queue: IQueue): void {
    queue.grantSendMessages(this.function);
    this.function.addEnvironment(IMPORT_QUEUE_ENV_VAR, queue.queueUrl);
  }

  /** Receive, delete and change visibility on the dead-letter queue + `IMPORT_DLQ_ENV_VAR`. */
  grantDeadLetterConsume(queue: IQueue): void {
    queue.grantConsumeMessages(this.function);
    this.function.addEnvironment(IMPORT_DLQ_ENV_VAR, queue.queueUrl);
  }
}
