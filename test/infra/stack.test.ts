import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { App, Token } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '../../infra/api-function.ts';
import {
  FALLBACK_FUNCTION_ID,
  FALLBACK_HANDLER,
  VISIBILITY_TIMEOUT_FACTOR,
  createCustomerApiStack,
  functionIdFor,
  scheduleRateMinutes,
} from '../../infra/customer-api-stack.ts';
import type { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { REFERENCE_DOCS_PATHS } from '../../lib/app/reference-page.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { ACTIVE_JOBS_INDEX, IMPORT_QUEUE, LOTS_INDEX, QUEUES, TABLES, TABLE_IDS, physicalTableName, type QueueId } from '../../lib/platform/storage/tables.ts';
import type { TableId } from '../../lib/platform/storage/tables.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import type { QueueWorkerDefinition, ScheduledWorkerDefinition } from '../../lib/app/workers.ts';
import {
  CDK_JSON_CONTEXT,
  asArray,
  environmentOf,
  logGroupOfFunction,
  logicalIdOfType,
  referencedLogicalIds,
  resourceById,
  resourcesOfType,
  singleReference,
  statementsOfRole,
} from './template-helpers.ts';
import type { CfnResource } from './template-helpers.ts';

// ── Harness ──────────────────────────────────────────────────────────────────────────────────
// Synthesizing runs esbuild for every function, so each stage variant is synthesized once per
// file (beforeAll) and its Template shared by the assertions; variants that assert nothing about
// bundles skip bundling (`aws:cdk:bundling-stacks: []`).

const ROUTE_LIST: readonly RouteDefinition[] = ROUTES;
const QUEUE_WORKERS = WORKERS.filter((worker): worker is QueueWorkerDefinition => worker.trigger === 'queue');
const SCHEDULED_WORKERS = WORKERS.filter((worker): worker is ScheduledWorkerDefinition => worker.trigger === 'schedule');
/** Its own routes, outside lib/<area>/routes.ts (test/infra/reference-docs.test.ts covers them). */
const REFERENCE_DOCS_ROUTE_KEYS = REFERENCE_DOCS_PATHS.map((path) => `GET ${path}`);

interface Synthesized {
  app: App;
  stack: CustomerApiStack;
  template: Template;
}

const outdirs: string[] = [];

/** A synth (esbuild of every function + CloudFormation validation) can outlast vitest's 10 s default hook timeout, and 2 minutes on a busy machine. */
const SYNTH_TIMEOUT_MS = 300_000;

function synth(context: Record<string, unknown>, options: { bundle: boolean }): Synthesized {
  const app = new App({
    context: {
      ...CDK_JSON_CONTEXT,
      'aws:cdk:enable-asset-metadata': true,
      ...(options.bundle ? {} : { 'aws:cdk:bundling-stacks': [] }),
      ...context,
    },
  });
  const stack = createCustomerApiStack(app);
  const template = Template.fromStack(stack);
  outdirs.push(app.outdir);
  return { app, stack, template };
}

function tableLogicalId(template: Template, stage: string, id: TableId): string {
  const name = physicalTableName(`customer-api-${stage}`, id);
  return logicalIdOfType(template, 'AWS::DynamoDB::Table', (table) => table.Properties.TableName === name);
}

/** The Lambda function a route key is integrated with. */
function functionLogicalIdForRouteKey(template: Template, routeKey: string): string {
  const routeId = logicalIdOfType(template, 'AWS::ApiGatewayV2::Route', (route) => route.Properties.RouteKey === routeKey);
  const integrationId = singleReference(resourceById(template, routeId).Properties.Target);
  const integration = resourceById(template, integrationId);
  expect(integration.Type).toBe('AWS::ApiGatewayV2::Integration');
  expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
  return singleReference(integration.Properties.IntegrationUri);
}

/** Logical id of the Lambda function of the ApiFunction with this construct id. */
function functionLogicalId(stack: CustomerApiStack, constructId: string): string {
  const construct = stack.node.findChild(constructId);
  if (!(construct instanceof ApiFunction)) throw new Error(`${constructId} is not an ApiFunction`);
  return stack.resolve(construct.function.functionName).Ref as string;
}

/** Logical id behind a token such as `queue.queueUrl` (a Ref). */
function stackRef(stack: CustomerApiStack, token: string): string {
  return singleReference(stack.resolve(token));
}

afterAll(() => {
  for (const outdir of outdirs) rmSync(outdir, { recursive: true, force: true });
});

// ── Default stage ────────────────────────────────────────────────────────────────────────────

describe('CustomerApiStack (stage "test", defaults)', () => {
  const STAGE = 'test';
  let synthesized: Synthesized;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act (shared): one synth of the stage for every assertion below.
    synthesized = synth({ stage: STAGE }, { bundle: true });
    template = synthesized.template;
  }, SYNTH_TIMEOUT_MS);

  describe('stack', () => {
    it('is named CustomerApi-<stage> and environment-agnostic', () => {
      // Assess
      expect(synthesized.stack.stackName).toBe('CustomerApi-test');
      expect(Token.isUnresolved(synthesized.stack.account)).toBe(true);
      expect(Token.isUnresolved(synthesized.stack.region)).toBe(true);
    });
  });

  describe('DynamoDB tables', () => {
    it('creates exactly one table per spec', () => {
      // Assess
      template.resourceCountIs('AWS::DynamoDB::Table', TABLE_IDS.length);
    });

    it.each(TABLE_IDS)('%s: on demand, PITR, AWS-managed SSE, keys from the spec', (id) => {
      // Prepare
      const spec = TABLES[id];
      const keySchema = [
        { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
        ...(spec.sortKey ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' }] : []),
      ];

      // Act
      const table = resourceById(template, tableLogicalId(template, STAGE, id));

      // Assess
      expect(table.Properties).toMatchObject({
        TableName: `customer-api-test-${id}`,
        BillingMode: 'PAY_PER_REQUEST',
        PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
        SSESpecification: { SSEEnabled: true },
        KeySchema: keySchema,
      });
      expect(table.Properties.ProvisionedThroughput).toBeUndefined();
    });

    it.each(TABLE_IDS)('%s: TTL exactly when the spec has a TTL attribute', (id) => {
      // Prepare
      const spec = TABLES[id];

      // Act
      const table = resourceById(template, tableLogicalId(template, STAGE, id));

      // Assess
      expect(table.Properties.TimeToLiveSpecification).toEqual(spec.ttlAttribute ? { AttributeName: spec.ttlAttribute, Enabled: true } : undefined);
    });

    it.each(TABLE_IDS)('%s: GSIs exactly as in the spec, with its projection', (id) => {
      // Prepare
      const expected = TABLES[id].globalIndexes.map((index) => ({
        IndexName: index.indexName,
        KeySchema: [
          { AttributeName: index.partitionKey.name, KeyType: 'HASH' },
          ...(index.sortKey ? [{ AttributeName: index.sortKey.name, KeyType: 'RANGE' }] : []),
        ],
        Projection: { ProjectionType: index.projection },
      }));

      // Act
      const table = resourceById(template, tableLogicalId(template, STAGE, id));

      // Assess
      expect(table.Properties.GlobalSecondaryIndexes).toEqual(expected.length > 0 ? expected : undefined);
    });

    it("inventory: the active-jobs index is sharded and keys only, so a job's checkpoint never writes it", () => {
      // Act
      const table = resourceById(template, tableLogicalId(template, STAGE, 'inventory'));
      const indexes = table.Properties.GlobalSecondaryIndexes as Array<{
        IndexName: string;
        KeySchema: Array<{ AttributeName: string }>;
        Projection: { ProjectionType: string };
      }>;
      const active = indexes.find((index) => index.IndexName === ACTIVE_JOBS_INDEX.indexName);

      // Assess
      expect(active?.Projection).toEqual({ ProjectionType: 'KEYS_ONLY' });
      expect(active?.KeySchema.map((key) => key.AttributeName)).toEqual([ACTIVE_JOBS_INDEX.partitionKey.name, ACTIVE_JOBS_INDEX.sortKey.name]);
      expect(indexes.find((index) => index.IndexName === 'gsi1')?.Projection).toEqual({ ProjectionType: 'ALL' });
    });

    it("inventory: gsi2 holds a transfer's second ledger leg, projecting the whole movement as gsi1 does", () => {
      // Act
      const table = resourceById(template, tableLogicalId(template, STAGE, 'inventory'));
      const indexes = table.Properties.GlobalSecondaryIndexes as Array<{
        IndexName: string;
        KeySchema: Array<{ AttributeName: string; KeyType: string }>;
        Projection: { ProjectionType: string };
      }>;

      // Assess
      expect(indexes.find((index) => index.IndexName === 'gsi2')).toEqual({
        IndexName: 'gsi2',
        KeySchema: [
          { AttributeName: 'gsi2pk', KeyType: 'HASH' },
          { AttributeName: 'gsi2sk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
    });

    it('inventory: the lots index lists builds by the lot they consumed and produced, projecting the whole provenance (docs/inventory.md "Tracing a lot")', () => {
      // Act
      const table = resourceById(template, tableLogicalId(template, STAGE, 'inventory'));
      const indexes = table.Properties.GlobalSecondaryIndexes as Array<{
        IndexName: string;
        KeySchema: Array<{ AttributeName: string; KeyType: string }>;
        Projection: { ProjectionType: string };
      }>;

      // Assess
      expect(indexes.find((index) => index.IndexName === LOTS_INDEX.indexName)).toEqual({
        IndexName: 'lots',
        KeySchema: [
          { AttributeName: 'lotPk', KeyType: 'HASH' },
          { AttributeName: 'lotSk', KeyType: 'RANGE' },
        ],
        Projection: { ProjectionType: 'ALL' },
      });
    });

    it.each(TABLE_IDS)('%s: deleted with a non-production stack', (id) => {
      // Act
      const table = resourceById(template, tableLogicalId(template, STAGE, id));

      // Assess
      expect(table.DeletionPolicy).toBe('Delete');
      expect(table.Properties.DeletionProtectionEnabled).toBe(false);
    });
  });

  describe('files bucket', () => {
    const filesBucketId = (): string => singleReference(synthesized.stack.resolve(synthesized.stack.filesBucket.bucketArn));

    it('blocks public access, encrypts with S3-managed keys, aborts stale multipart uploads, has no CORS and no versioning (a deleted attachment is gone)', () => {
      // Act
      const bucket = resourceById(template, filesBucketId());

      // Assess
      template.resourceCountIs('AWS::S3::Bucket', 2);
      expect(bucket.Properties).toMatchObject({
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
        },
        LifecycleConfiguration: {
          Rules: expect.arrayContaining([expect.objectContaining({ Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } })]),
        },
      });
      expect(bucket.Properties.CorsConfiguration).toBeUndefined();
      expect(bucket.Properties.VersioningConfiguration).toBeUndefined();
    });

    it('denies every request not made over TLS', () => {
      // Prepare
      const bucketId = filesBucketId();

      // Act
      const policy = logicalIdOfType(template, 'AWS::S3::BucketPolicy', (candidate) => referencedLogicalIds(candidate.Properties.Bucket).has(bucketId));

      // Assess
      expect(resourceById(template, policy).Properties.PolicyDocument).toMatchObject({
        Statement: expect.arrayContaining([
          expect.objectContaining({
            Effect: 'Deny',
            Action: 's3:*',
            Principal: { AWS: '*' },
            Condition: { Bool: { 'aws:SecureTransport': 'false' } },
          }),
        ]),
      });
    });
  });

  describe('import queue', () => {
    function queueId(suffix: string): string {
      return logicalIdOfType(template, 'AWS::SQS::Queue', (queue) => queue.Properties.QueueName === `customer-api-test-${suffix}`);
    }

    it('redrives to the DLQ after maxReceiveCount with the spec visibility timeout, SQS-managed SSE', () => {
      // Prepare
      const dlqId = queueId(IMPORT_QUEUE.deadLetterId);

      // Act
      const queue = resourceById(template, queueId(IMPORT_QUEUE.id));

      // Assess
      expect(queue.Properties).toMatchObject({
        VisibilityTimeout: IMPORT_QUEUE.visibilityTimeoutSeconds,
        SqsManagedSseEnabled: true,
        RedrivePolicy: { deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] }, maxReceiveCount: IMPORT_QUEUE.maxReceiveCount },
      });
    });

    it('keeps dead letters for the spec retention, SQS-managed SSE', () => {
      // Act
      const dlq = resourceById(template, queueId(IMPORT_QUEUE.deadLetterId));

      // Assess
      expect(dlq.Properties).toMatchObject({
        MessageRetentionPeriod: IMPORT_QUEUE.deadLetterRetentionDays * 24 * 60 * 60,
        SqsManagedSseEnabled: true,
      });
      expect(dlq.Properties.RedrivePolicy).toBeUndefined();
    });

    it.each([IMPORT_QUEUE.id, IMPORT_QUEUE.deadLetterId])('%s denies requests not made over TLS', (suffix) => {
      // Prepare
      const id = queueId(suffix);

      // Act
      const policyId = logicalIdOfType(template, 'AWS::SQS::QueuePolicy', (policy) => referencedLogicalIds(policy.Properties.Queues).has(id));

      // Assess
      expect(resourceById(template, policyId).Properties.PolicyDocument).toMatchObject({
        Statement: expect.arrayContaining([expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]),
      });
    });

    it('alarms as soon as one message is visible on the DLQ', () => {
      // Prepare
      const dlqId = queueId(IMPORT_QUEUE.deadLetterId);

      // Act
      const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm').filter(
        ([, alarm]) => alarm.Properties.AlarmName === 'customer-api-test-imports-dlq-not-empty',
      );

      // Assess
      expect(alarms).toHaveLength(1);
      expect(alarms[0]?.[1].Properties).toMatchObject({
        Namespace: 'AWS/SQS',
        MetricName: 'ApproximateNumberOfMessagesVisible',
        Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [dlqId, 'QueueName'] } }],
        ComparisonOperator: 'GreaterThanThreshold',
        Threshold: 0,
        EvaluationPeriods: 1,
        TreatMissingData: 'notBreaching',
      });
    });
  });

  describe('HTTP API', () => {
    it('is one HTTP API whose $default stage auto-deploys with access logs', () => {
      // Assess
      template.resourceCountIs('AWS::ApiGatewayV2::Api', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Api', { ProtocolType: 'HTTP', Name: 'customer-api-test' });
      template.resourceCountIs('AWS::ApiGatewayV2::Stage', 1);
      template.hasResourceProperties('AWS::ApiGatewayV2::Stage', {
        StageName: '$default',
        AutoDeploy: true,
        AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp('\\$context\\.requestId') },
      });
    });

    it('has one route per ROUTES entry plus $default and the API reference, nothing else', () => {
      // Act
      const routeKeys = resourcesOfType(template, 'AWS::ApiGatewayV2::Route').map(([, route]) => route.Properties.RouteKey);

      // Assess
      expect(routeKeys.sort()).toEqual([...ROUTE_LIST.map((route) => `${route.method} ${route.path}`), '$default', ...REFERENCE_DOCS_ROUTE_KEYS].sort());
    });

    it.each(ROUTE_LIST)('$method $path is integrated (payload 2.0) with the $operationId function', (route) => {
      // Prepare
      const expected = functionLogicalId(synthesized.stack, functionIdFor(route.operationId));

      // Act
      const target = functionLogicalIdForRouteKey(template, `${route.method} ${route.path}`);

      // Assess
      expect(target).toBe(expected);
      expect(target).toMatch(new RegExp(`^${functionIdFor(route.operationId)}[0-9A-F]{8}$`));
      expect(resourceById(template, target).Type).toBe('AWS::Lambda::Function');
    });

    it.each(ROUTE_LIST)("$operationId's bundle is built from its handler entry", (route) => {
      // Prepare
      const fnId = functionLogicalIdForRouteKey(template, `${route.method} ${route.path}`);
      const assetPath = resourceById(template, fnId).Metadata?.['aws:asset:path'];
      expect(typeof assetPath).toBe('string');
      const mapFile = join(synthesized.app.outdir, assetPath as string, 'index.mjs.map');

      // Act
      const sources = (JSON.parse(readFileSync(mapFile, 'utf8')) as { sources: string[] }).sources;

      // Assess
      expect(existsSync(join(synthesized.app.outdir, assetPath as string, 'index.mjs'))).toBe(true);
      expect(sources.some((source) => source.endsWith(route.handler))).toBe(true);
    });

    it('sends $default to the not-found function built from the fallback entry', () => {
      // Prepare
      const expected = functionLogicalId(synthesized.stack, FALLBACK_FUNCTION_ID);

      // Act
      const target = functionLogicalIdForRouteKey(template, '$default');

      // Assess
      expect(target).toBe(expected);
      const assetPath = resourceById(template, target).Metadata?.['aws:asset:path'] as string;
      const { sources } = JSON.parse(readFileSync(join(synthesized.app.outdir, assetPath, 'index.mjs.map'), 'utf8')) as {
        sources: string[];
      };
      expect(sources.some((source) => source.endsWith(FALLBACK_HANDLER))).toBe(true);
    });

    it.each([...ROUTE_LIST.map((route) => `${route.method} ${route.path}`), '$default', ...REFERENCE_DOCS_ROUTE_KEYS])(
      'API Gateway may invoke the function behind %s (with the invoke role, test/infra/api-invoke-role.test.ts)',
      (routeKey) => {
        // Prepare
        const fnId = functionLogicalIdForRouteKey(template, routeKey);
        const routeId = logicalIdOfType(template, 'AWS::ApiGatewayV2::Route', (route) => route.Properties.RouteKey === routeKey);
        const integration = resourceById(template, singleReference(resourceById(template, routeId).Properties.Target));

        // Act
        const roleId = singleReference(integration.Properties.CredentialsArn);
        const invokable = statementsOfRole(template, roleId)
          .filter((statement) => statement.Effect === 'Allow' && asArray(statement.Action).includes('lambda:InvokeFunction'))
          .flatMap((statement) => asArray(statement.Resource as unknown))
          .map((resource) => singleReference(resource));

        // Assess
        expect((resourceById(template, roleId).Properties.AssumeRolePolicyDocument as { Statement: unknown[] }).Statement).toEqual([
          { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'apigateway.amazonaws.com' } },
        ]);
        expect(invokable).toContain(fnId);
      },
    );

    it('outputs the API URL', () => {
      // Assess
      template.hasOutput('ApiUrl', { Value: Match.anyValue() });
    });
  });

  describe('ApiFunction house defaults', () => {
    it('creates exactly one function per route, the fallback, the API reference and one per worker (no helper Lambdas)', () => {
      // Assess
      template.resourceCountIs('AWS::Lambda::Function', ROUTE_LIST.length + 2 + WORKERS.length);
    });

    it('runs every function on arm64 + nodejs22.x, ESM bundle, 512 MB, 10 s (workers: their own timeout), own log group', () => {
      // Prepare
      const workerTimeouts = new Map(WORKERS.map((worker) => [functionLogicalId(synthesized.stack, functionIdFor(worker.id)), worker.timeoutSeconds]));

      // Act
      const functions = resourcesOfType(template, 'AWS::Lambda::Function');

      // Assess
      for (const [id, fn] of functions) {
        expect(fn.Properties, id).toMatchObject({
          Architectures: ['arm64'],
          Runtime: 'nodejs22.x',
          Handler: 'index.handler',
          MemorySize: 512,
          Timeout: workerTimeouts.get(id) ?? 10,
        });
        expect(fn.Properties.TracingConfig).toBeUndefined();
        const logGroup = resourceById(template, logGroupOfFunction(template, id));
        expect(logGroup).toMatchObject({ Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 14 }, DeletionPolicy: 'Delete' });
      }
    });

    it('sets the house environment on every function', () => {
      // Act
      const functions = resourcesOfType(template, 'AWS::Lambda::Function');

      // Assess
      for (const [id] of functions) {
        expect(environmentOf(template, id), id).toMatchObject({
          NODE_OPTIONS: '--enable-source-maps',
          STAGE: STAGE,
          RATE_LIMIT_GENERAL_PER_MINUTE: '1200',
          RATE_LIMIT_SUBMISSION_PER_MINUTE: '20',
          API_KEY_CACHE_SECONDS: '30',
          AUTH_FAILURE_LIMIT_PER_MINUTE: '100',
        });
      }
    });

    it('defines require for CommonJS dependencies at the top of each ESM bundle', () => {
      // Act
      const bundles = resourcesOfType(template, 'AWS::Lambda::Function').map(([, fn]) =>
        readFileSync(join(synthesized.app.outdir, fn.Metadata?.['aws:asset:path'] as string, 'index.mjs'), 'utf8'),
      );

      // Assess
      for (const bundle of bundles) expect(bundle.startsWith('import { createRequire as __houseCreateRequire }')).toBe(true);
    });
  });

  describe('workers (lib/app/workers.ts)', () => {
    const workerFnId = (workerId: string): string => functionLogicalId(synthesized.stack, functionIdFor(workerId));
    const queueIdOf = (worker: { queue: QueueId }): string => stackRef(synthesized.stack, synthesized.stack.workerQueues[worker.queue].queue.queueUrl);
    const deadLetterQueueIdOf = (worker: { queue: QueueId }): string =>
      stackRef(synthesized.stack, synthesized.stack.workerQueues[worker.queue].deadLetterQueue.queueUrl);

    function mappingsOf(fnId: string): CfnResource[] {
      return resourcesOfType(template, 'AWS::Lambda::EventSourceMapping')
        .filter(([, mapping]) => singleReference(mapping.Properties.FunctionName) === fnId)
        .map(([, mapping]) => mapping);
    }

    it.each(WORKERS)('$id: the bundle is built from its handler entry, timeout $timeoutSeconds s', (worker) => {
      // Prepare
      const fn = resourceById(template, workerFnId(worker.id));
      const assetPath = fn.Metadata?.['aws:asset:path'] as string;

      // Act
      const { sources } = JSON.parse(readFileSync(join(synthesized.app.outdir, assetPath, 'index.mjs.map'), 'utf8')) as { sources: string[] };

      // Assess
      expect(sources.some((source) => source.endsWith(worker.handler))).toBe(true);
      expect(fn.Properties.Timeout).toBe(worker.timeoutSeconds);
    });

    it.each(WORKERS)('$id: no route and no API Gateway permission reach it', (worker) => {
      // Prepare
      const fnId = workerFnId(worker.id);

      // Act
      const principals = resourcesOfType(template, 'AWS::Lambda::Permission')
        .filter(([, permission]) => referencedLogicalIds(permission.Properties.FunctionName).has(fnId))
        .map(([, permission]) => permission.Properties.Principal);

      // Assess
      expect(principals).not.toContain('apigateway.amazonaws.com');
      expect(principals).toEqual(worker.trigger === 'schedule' ? ['events.amazonaws.com'] : []);
    });

    it.each(QUEUE_WORKERS)(
      '$id: one SQS event source mapping with partial batch failures, batch size $batchSize, max concurrency $maxConcurrency',
      (worker) => {
        // Act
        const mappings = mappingsOf(workerFnId(worker.id));

        // Assess
        expect(mappings).toHaveLength(1);
        expect(mappings[0]?.Properties).toMatchObject({
          EventSourceArn: { 'Fn::GetAtt': [queueIdOf(worker), 'Arn'] },
          FunctionResponseTypes: ['ReportBatchItemFailures'],
          BatchSize: worker.batchSize,
          ScalingConfig: { MaximumConcurrency: worker.maxConcurrency },
        });
        expect(worker.maxConcurrency).toBeGreaterThanOrEqual(2);
      },
    );

    it.each(QUEUE_WORKERS)('$id: its queue hides a message ≥ 6 × the function timeout and dead-letters after ≥ 5 receives', (worker) => {
      // Prepare
      const fn = resourceById(template, workerFnId(worker.id));

      // Act
      const queue = resourceById(template, queueIdOf(worker));

      // Assess
      expect(queue.Properties.VisibilityTimeout as number).toBeGreaterThanOrEqual(VISIBILITY_TIMEOUT_FACTOR * (fn.Properties.Timeout as number));
      const redrive = queue.Properties.RedrivePolicy as { maxReceiveCount: number; deadLetterTargetArn: unknown };
      expect(redrive.maxReceiveCount).toBeGreaterThanOrEqual(5);
      expect(singleReference(redrive.deadLetterTargetArn)).toBe(deadLetterQueueIdOf(worker));
      // Imports and exports: a job waiting in a backlog is never judged stalled within this
      // (docs/imports.md "Guarantees"); webhooks: longer than the retry schedule (docs/webhooks.md "Retry waits").
      expect(queue.Properties.MessageRetentionPeriod).toBe(QUEUES[worker.queue].messageRetentionDays * 86_400);
    });

    it.each(SCHEDULED_WORKERS)('$id: an EventBridge rule invokes it every $everySeconds s (whole minutes), without async retries', (worker) => {
      // Prepare
      const fnId = workerFnId(worker.id);
      const minutes = scheduleRateMinutes(worker.everySeconds);

      // Act
      const rules = resourcesOfType(template, 'AWS::Events::Rule').filter(([, rule]) =>
        (rule.Properties.Targets as { Arn: unknown }[]).some((target) => singleReference(target.Arn) === fnId),
      );
      const invokeConfigs = resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig').filter(
        ([, config]) => singleReference(config.Properties.FunctionName) === fnId,
      );

      // Assess
      expect(rules).toHaveLength(1);
      const [ruleId, rule] = rules[0] as [string, CfnResource];
      // CDK writes whole hours in hours.
      const rate =
        minutes % 60 === 0 ? `rate(${minutes / 60} ${minutes === 60 ? 'hour' : 'hours'})` : `rate(${minutes} ${minutes === 1 ? 'minute' : 'minutes'})`;
      expect(rule.Properties).toMatchObject({
        ScheduleExpression: rate,
        State: 'ENABLED',
      });
      expect(mappingsOf(fnId)).toEqual([]);
      template.hasResourceProperties('AWS::Lambda::Permission', {
        Principal: 'events.amazonaws.com',
        SourceArn: { 'Fn::GetAtt': [ruleId, 'Arn'] },
      });
      expect(invokeConfigs).toHaveLength(1);
      expect(invokeConfigs[0]?.[1].Properties).toMatchObject({ MaximumRetryAttempts: 0 });
    });
  });

  // Each function's IAM statements and environment: test/infra/grants.test.ts.
});

// ── Context overrides and the production profile ─────────────────────────────────────────────

describe('CustomerApiStack context overrides', () => {
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    template = synth(
      { stage: 'qa', generalRateLimit: '77', submissionRateLimit: '3', logRetentionDays: '30', apiKeyCacheSeconds: '5', authFailureLimit: '40' },
      { bundle: false },
    ).template;
  }, SYNTH_TIMEOUT_MS);

  it('passes the overridden rate limits, key cache and failed-authentication limit to every function', () => {
    // Act
    const functions = resourcesOfType(template, 'AWS::Lambda::Function');

    // Assess
    expect(functions.length).toBe(ROUTE_LIST.length + 2 + WORKERS.length);
    for (const [id] of functions) {
      expect(environmentOf(template, id), id).toMatchObject({
        STAGE: 'qa',
        RATE_LIMIT_GENERAL_PER_MINUTE: '77',
        RATE_LIMIT_SUBMISSION_PER_MINUTE: '3',
        API_KEY_CACHE_SECONDS: '5',
        AUTH_FAILURE_LIMIT_PER_MINUTE: '40',
      });
    }
  });

  it('applies the overridden retention to every log group', () => {
    // Act
    const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');

    // Assess
    expect(logGroups.length).toBe(ROUTE_LIST.length + 3 + WORKERS.length);
    for (const [, logGroup] of logGroups) expect(logGroup.Properties.RetentionInDays).toBe(30);
  });

  it('names the tables after the stage', () => {
    // Assess
    for (const id of TABLE_IDS) template.hasResourceProperties('AWS::DynamoDB::Table', { TableName: `customer-api-qa-${id}` });
  });
});

describe('CustomerApiStack stage prod', () => {
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    template = synth({ stage: 'prod' }, { bundle: false }).template;
  }, SYNTH_TIMEOUT_MS);

  it.each(['AWS::DynamoDB::Table', 'AWS::S3::Bucket', 'AWS::SQS::Queue', 'AWS::Logs::LogGroup'])('retains every %s', (type) => {
    // Act
    const resources = resourcesOfType(template, type);

    // Assess
    expect(resources.length).toBeGreaterThan(0);
    for (const [id, resource] of resources) expect(resource.DeletionPolicy, id).toBe('Retain');
  });

  it('protects the tables from deletion', () => {
    // Act
    const tables = resourcesOfType(template, 'AWS::DynamoDB::Table');

    // Assess
    for (const [id, table] of tables) expect(table.Properties.DeletionProtectionEnabled, id).toBe(true);
  });

  it('keeps logs 90 days', () => {
    // Act
    const logGroups = resourcesOfType(template, 'AWS::Logs::LogGroup');

    // Assess
    for (const [id, logGroup] of logGroups) expect(logGroup.Properties.RetentionInDays, id).toBe(90);
  });
});
