import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CustomerApiStack,
  FALLBACK_HANDLER,
  VISIBILITY_TIMEOUT_FACTOR,
  assertVisibilityTimeout,
  functionIdFor,
  scheduleIdFor,
  scheduleRateMinutes,
} from '../../infra/customer-api-stack.ts';
import type { FunctionGrant } from '../../infra/grants.ts';
import { resolveStageConfig } from '../../infra/stages.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import type { RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { IMPORT_QUEUE, QUEUES } from '../../lib/platform/storage/tables.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import type { QueueWorkerDefinition, ScheduledWorkerDefinition, WorkerDefinition } from '../../lib/app/workers.ts';
import { CDK_JSON_CONTEXT, resourceById, resourcesOfType, singleReference } from './template-helpers.ts';

// The stack's worker wiring for shapes lib/app/workers.ts does not have (other batch sizes, rates that
// are not whole minutes) and the synth-time guards. Bundling is skipped: stack.test.ts covers the
// bundles and the real WORKERS.

const QUEUE_VARIANT: QueueWorkerDefinition = {
  id: 'drainImports',
  trigger: 'queue',
  handler: FALLBACK_HANDLER,
  queue: IMPORT_QUEUE.id,
  timeoutSeconds: 30,
  batchSize: 10,
  maxConcurrency: 2,
  access: { tables: {} },
};

const SCHEDULE_VARIANT: ScheduledWorkerDefinition = {
  id: 'tickEvery90s',
  trigger: 'schedule',
  handler: FALLBACK_HANDLER,
  everySeconds: 90,
  timeoutSeconds: 20,
  access: { tables: { inventory: 'read' } },
};

/** What the variants' functions may do (infra/grants.ts holds the real workers'). */
const QUEUE_VARIANT_GRANT: FunctionGrant = { tables: {}, importQueue: ['consume'] };
const SCHEDULE_VARIANT_GRANT: FunctionGrant = { tables: { inventory: { calls: ['GetItem'] } } };

const apps: App[] = [];

function buildStack(workers: readonly WorkerDefinition[], routes: readonly RouteDefinition[] = []): CustomerApiStack {
  const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
  apps.push(app);
  const config = resolveStageConfig((key) => ({ stage: 'workers' })[key]);
  // The first worker of an id gets the grant of its trigger (a duplicate id must fail as such).
  const grants: Record<string, FunctionGrant> = {};
  for (const worker of workers) grants[worker.id] ??= worker.trigger === 'queue' ? QUEUE_VARIANT_GRANT : SCHEDULE_VARIANT_GRANT;
  return new CustomerApiStack(app, 'CustomerApi-workers', { config, routes, workers, grants: { workers: grants } });
}

afterAll(() => {
  for (const app of apps) rmSync(app.outdir, { recursive: true, force: true });
});

describe('scheduleRateMinutes', () => {
  it.each([
    [1, 1],
    [30, 1],
    [60, 1],
    [61, 2],
    [90, 2],
    [120, 2],
    [3600, 60],
  ])('%i s → rate(%i min), never more often than asked', (everySeconds, minutes) => {
    // Act
    const rate = scheduleRateMinutes(everySeconds);

    // Assess
    expect(rate).toBe(minutes);
  });

  it.each([0, -60, Number.NaN])('refuses %d s', (everySeconds) => {
    // Act + Assess
    expect(() => scheduleRateMinutes(everySeconds)).toThrow(/everySeconds/);
  });
});

describe('assertVisibilityTimeout', () => {
  it.each(WORKERS.filter((worker): worker is QueueWorkerDefinition => worker.trigger === 'queue'))(
    '$id: its queue spec satisfies 6 × the worker timeout',
    (worker) => {
      // Act + Assess
      expect(() => assertVisibilityTimeout(worker, QUEUES[worker.queue].visibilityTimeoutSeconds)).not.toThrow();
      expect(QUEUES[worker.queue].visibilityTimeoutSeconds).toBeGreaterThanOrEqual(VISIBILITY_TIMEOUT_FACTOR * worker.timeoutSeconds);
    },
  );

  it('accepts exactly 6 × and refuses one second less', () => {
    // Act + Assess
    expect(() => assertVisibilityTimeout({ ...QUEUE_VARIANT, timeoutSeconds: 10 }, 60)).not.toThrow();
    expect(() => assertVisibilityTimeout({ ...QUEUE_VARIANT, timeoutSeconds: 10 }, 59)).toThrow(/below 6 × its timeout of 10 s = 60 s/);
  });
});

describe('CustomerApiStack workers (injected variants)', () => {
  let stack: CustomerApiStack;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act
    stack = buildStack([QUEUE_VARIANT, SCHEDULE_VARIANT]);
    template = Template.fromStack(stack);
  }, 120_000);

  const fnLogicalId = (workerId: string): string => {
    const fn = stack.workerFunctions.get(workerId);
    if (!fn) throw new Error(`no worker function ${workerId}`);
    return singleReference(stack.resolve(fn.function.functionName));
  };

  it('names constructs after the worker ids', () => {
    // Assess
    expect(stack.node.tryFindChild(functionIdFor(QUEUE_VARIANT.id))).toBeDefined();
    expect(stack.node.tryFindChild(functionIdFor(SCHEDULE_VARIANT.id))).toBeDefined();
    expect(stack.node.tryFindChild(scheduleIdFor(SCHEDULE_VARIANT.id))).toBe(stack.workerSchedules.get(SCHEDULE_VARIANT.id));
    expect(fnLogicalId(QUEUE_VARIANT.id)).toMatch(/^DrainImportsFunction[0-9A-F]{8}$/);
    expect(singleReference(stack.resolve(stack.workerSchedules.get(SCHEDULE_VARIANT.id)?.ruleArn))).toMatch(/^TickEvery90sSchedule[0-9A-F]{8}$/);
  });

  it('maps the queue variant with its batch size and concurrency', () => {
    // Act
    const mappings = resourcesOfType(template, 'AWS::Lambda::EventSourceMapping');

    // Assess
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.[1].Properties).toMatchObject({
      FunctionName: { Ref: fnLogicalId(QUEUE_VARIANT.id) },
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 2 },
      FunctionResponseTypes: ['ReportBatchItemFailures'],
    });
    expect(resourceById(template, fnLogicalId(QUEUE_VARIANT.id)).Properties.Timeout).toBe(30);
  });

  it('rounds a 90 s schedule up to rate(2 minutes)', () => {
    // Act
    const rules = resourcesOfType(template, 'AWS::Events::Rule');

    // Assess
    expect(rules).toHaveLength(1);
    expect(rules[0]?.[1].Properties).toMatchObject({
      ScheduleExpression: 'rate(2 minutes)',
      Targets: [{ Arn: { 'Fn::GetAtt': [fnLogicalId(SCHEDULE_VARIANT.id), 'Arn'] } }],
    });
  });
});

describe('CustomerApiStack worker guards (fail at synth)', () => {
  it.each([
    {
      name: 'a queue worker whose timeout × 6 exceeds the visibility timeout',
      workers: [{ ...QUEUE_VARIANT, timeoutSeconds: IMPORT_QUEUE.visibilityTimeoutSeconds / VISIBILITY_TIMEOUT_FACTOR + 1 }],
      error: /visibility timeout of 360 s, below 6 × its timeout of 61 s/,
    },
    { name: 'maxConcurrency below 2 (AWS minimum)', workers: [{ ...QUEUE_VARIANT, maxConcurrency: 1 }], error: /maxConcurrency .* 2\.\.1000, got 1/ },
    { name: 'a batch size above 10', workers: [{ ...QUEUE_VARIANT, batchSize: 11 }], error: /batchSize .* 1\.\.10.*got 11/ },
    { name: 'two workers with one id', workers: [QUEUE_VARIANT, { ...SCHEDULE_VARIANT, id: QUEUE_VARIANT.id }], error: /already taken/ },
  ])('refuses $name', ({ workers, error }) => {
    // Act + Assess
    expect(() => buildStack(workers)).toThrow(error);
  });

  it('refuses a worker whose id collides with a route operationId', () => {
    // Prepare
    const route = ROUTES[0] as RouteDefinition;

    // Act + Assess
    expect(() => buildStack([{ ...SCHEDULE_VARIANT, id: route.operationId }], [route])).toThrow(/already taken/);
  });
});
