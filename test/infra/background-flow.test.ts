import { rmSync } from 'node:fs';
import { App, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Table } from 'aws-cdk-lib/aws-dynamodb';
import { Bucket } from 'aws-cdk-lib/aws-s3';
import { Key } from 'aws-cdk-lib/aws-kms';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ApiFunction, ApiFunctionResources } from '../../infra/api-function.ts';
import { WorkerQueue, addQueueWorker, addScheduledWorker } from '../../infra/background-flow.ts';
import type { FunctionGrant } from '../../infra/grants.ts';
import { resolveStageConfig } from '../../infra/stages.ts';
import { FALLBACK_HANDLER } from '../../infra/customer-api-stack.ts';
import { IMPORT_QUEUE, TABLE_IDS } from '../../lib/platform/storage/tables.ts';
import type { QueueSpec, TableId } from '../../lib/platform/storage/tables.ts';
import type { QueueWorkerDefinition, ScheduledWorkerDefinition } from '../../lib/app/workers.ts';
import { CDK_JSON_CONTEXT, asArray, resourceById, resourcesOfType, singleReference, statementsOfRole } from './template-helpers.ts';

// The background-flow construct on its own (infra/background-flow.ts), in a bare stack with a
// made-up second flow: what a new flow (exports, webhook deliveries) gets by using it. The real
// import flow is covered through the whole stack in stack.test.ts and workers.test.ts.

const EXPORT_SPEC: QueueSpec = {
  id: 'exports',
  deadLetterId: 'exports-dlq',
  maxReceiveCount: 4,
  visibilityTimeoutSeconds: 180,
  messageRetentionDays: 4,
  deadLetterRetentionDays: 14,
  envVar: 'EXPORT_QUEUE_URL',
  deadLetterEnvVar: 'EXPORT_DLQ_URL',
};

const EXPORT_WORKER: QueueWorkerDefinition = {
  id: 'processExports',
  trigger: 'queue',
  // The queue id names the import queue only because lib/platform/storage/tables.ts has no other yet; the
  // construct reads the source it is given.
  queue: IMPORT_QUEUE.id,
  handler: FALLBACK_HANDLER,
  timeoutSeconds: 30,
  batchSize: 2,
  maxConcurrency: 3,
  access: { tables: {} },
};

const SWEEPER: ScheduledWorkerDefinition = {
  id: 'sweepExports',
  trigger: 'schedule',
  handler: FALLBACK_HANDLER,
  everySeconds: 300,
  timeoutSeconds: 20,
  access: { tables: {} },
};

const CONSUMER_GRANT: FunctionGrant = { tables: {}, importQueue: ['consume'] };
const NO_GRANT: FunctionGrant = { tables: {} };

const config = resolveStageConfig((key) => ({ stage: 'flow' })[key]);
const apps: App[] = [];

function bareStack(): { stack: Stack; flow: WorkerQueue; resources: ApiFunctionResources } {
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
  apps.push(app);
  const stack = new Stack(app, 'FlowTest');
  const flow = new WorkerQueue(stack, { spec: EXPORT_SPEC, config, constructPrefix: 'Export', deadLetterMeaning: 'Exports failed repeatedly' });
  const tables = Object.fromEntries(TABLE_IDS.map((id) => [id, Table.fromTableName(stack, `${id}-table`, `flow-${id}`)])) as Record<TableId, ITable>;
  const resources: ApiFunctionResources = {
    tables,
    bucket: Bucket.fromBucketName(stack, 'Files', 'flow-files'),
    importQueue: flow.queue,
    importDeadLetterQueue: flow.deadLetterQueue,
    queues: {
      imports: { queue: flow.queue, deadLetterQueue: flow.deadLetterQueue },
      exports: { queue: flow.queue, deadLetterQueue: flow.deadLetterQueue },
      webhooks: { queue: flow.queue, deadLetterQueue: flow.deadLetterQueue },
      builds: { queue: flow.queue, deadLetterQueue: flow.deadLetterQueue },
    },
    cursorSecret: Secret.fromSecretNameV2(stack, 'Cursor', 'flow-cursor'),
    webhookSecretsKey: Key.fromKeyArn(stack, 'WebhookKey', 'arn:aws:kms:us-east-1:111111111111:key/flow'),
  };
  return { stack, flow, resources };
}

afterAll(() => {
  for (const app of apps) rmSync(app.outdir, { recursive: true, force: true });
});

describe('WorkerQueue + addQueueWorker + addScheduledWorker (a made-up exports flow)', () => {
  let stack: Stack;
  let flow: WorkerQueue;
  let worker: ApiFunction;
  let template: Template;

  beforeAll(() => {
    // Prepare
    const built = bareStack();
    ({ stack, flow } = built);

    // Act
    worker = addQueueWorker(stack, EXPORT_WORKER, flow, { grant: CONSUMER_GRANT, resources: built.resources, config });
    addScheduledWorker(stack, SWEEPER, { grant: NO_GRANT, resources: built.resources, config });
    template = Template.fromStack(stack);
  }, 120_000);

  const queueId = () => singleReference(stack.resolve(flow.queue.queueUrl));
  const deadLetterId = () => singleReference(stack.resolve(flow.deadLetterQueue.queueUrl));

  it('creates the queue and its DLQ under the ids and names the prefix and spec give, encrypted', () => {
    // Act
    const queue = resourceById(template, queueId());
    const deadLetters = resourceById(template, deadLetterId());

    // Assess
    expect(queueId()).toMatch(/^ExportQueue[0-9A-F]{8}$/);
    expect(deadLetterId()).toMatch(/^ExportDeadLetterQueue[0-9A-F]{8}$/);
    expect(queue.Properties).toMatchObject({
      QueueName: 'customer-api-flow-exports',
      VisibilityTimeout: 180,
      MessageRetentionPeriod: 4 * 86_400,
      SqsManagedSseEnabled: true,
    });
    expect(deadLetters.Properties).toMatchObject({ QueueName: 'customer-api-flow-exports-dlq', MessageRetentionPeriod: 14 * 86_400 });
  });

  it('redrives to the DLQ after maxReceiveCount receives', () => {
    // Act
    const redrive = resourceById(template, queueId()).Properties.RedrivePolicy as { maxReceiveCount: number; deadLetterTargetArn: unknown };

    // Assess
    expect(redrive.maxReceiveCount).toBe(4);
    expect(singleReference(redrive.deadLetterTargetArn)).toBe(deadLetterId());
  });

  it('alarms on any visible dead letter, named after the DLQ', () => {
    // Act
    const alarms = resourcesOfType(template, 'AWS::CloudWatch::Alarm');

    // Assess
    expect(alarms).toHaveLength(1);
    const [alarmId, alarm] = alarms[0] as [string, { Properties: Record<string, unknown> }];
    expect(alarmId).toMatch(/^ExportDeadLetterQueueAlarm[0-9A-F]{8}$/);
    expect(alarm.Properties).toMatchObject({
      AlarmName: 'customer-api-flow-exports-dlq-not-empty',
      AlarmDescription: 'Exports failed repeatedly and were moved to the dead-letter queue.',
      Namespace: 'AWS/SQS',
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Dimensions: [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [deadLetterId(), 'QueueName'] } }],
      Threshold: 0,
      ComparisonOperator: 'GreaterThanThreshold',
    });
  });

  it('maps the worker to the queue with partial batch responses, its batch size and concurrency', () => {
    // Prepare
    const fnId = singleReference(stack.resolve(worker.function.functionName));

    // Act
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping');

    // Assess
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.[1].Properties).toMatchObject({
      FunctionName: { Ref: fnId },
      EventSourceArn: { 'Fn::GetAtt': [queueId(), 'Arn'] },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
      BatchSize: 2,
      ScalingConfig: { MaximumConcurrency: 3 },
    });
    expect(resourceById(template, fnId).Properties.Timeout).toBe(30);
  });

  it("grants the worker's role receive and delete on its queue only", () => {
    // Prepare
    const roleId = singleReference(stack.resolve(worker.role.roleName));

    // Act
    const statements = statementsOfRole(template, roleId)
      .filter((statement) => JSON.stringify(statement.Action).includes('sqs:'))
      .map((statement) => ({ ...statement, Action: asArray(statement.Action).sort() }));

    // Assess
    expect(statements).toEqual([
      {
        Effect: 'Allow',
        Action: ['sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ReceiveMessage'],
        Resource: { 'Fn::GetAtt': [queueId(), 'Arn'] },
      },
    ]);
  });

  it('runs the sweeper from an EventBridge rule every 5 minutes, without async retries', () => {
    // Act
    const rules = resourcesOfType(template, 'AWS::Events::Rule');
    const invokeConfigs = resourcesOfType(template, 'AWS::Lambda::EventInvokeConfig');

    // Assess
    expect(rules).toHaveLength(1);
    expect(rules[0]?.[0]).toMatch(/^SweepExportsSchedule[0-9A-F]{8}$/);
    expect(rules[0]?.[1].Properties.ScheduleExpression).toBe('rate(5 minutes)');
    expect(invokeConfigs).toHaveLength(1);
    expect(invokeConfigs[0]?.[1].Properties).toMatchObject({ MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 });
  });
});

describe('addQueueWorker guards', () => {
  it('refuses a worker whose timeout × 6 exceeds the queue visibility timeout', () => {
    // Prepare
    const { stack, flow, resources } = bareStack();

    // Act + Assess
    expect(() => addQueueWorker(stack, { ...EXPORT_WORKER, timeoutSeconds: 31 }, flow, { grant: CONSUMER_GRANT, resources, config })).toThrow(
      /visibility timeout of 180 s, below 6 × its timeout of 31 s = 186 s/,
    );
  });

  it('refuses a queue worker whose grant does not consume the queue', () => {
    // Prepare
    const { stack, flow, resources } = bareStack();

    // Act + Assess
    expect(() => addQueueWorker(stack, EXPORT_WORKER, flow, { grant: NO_GRANT, resources, config })).toThrow(/consuming the import queue differs/);
  });
});
