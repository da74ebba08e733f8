import { beforeAll, describe, expect, it } from 'vitest';
import { resolveStageConfig } from '../../infra/stages.ts';
import { reservedConcurrencyFor, stageThrottle } from '../../infra/throttling.ts';
import { IMPORT_QUEUE } from '../../lib/platform/storage/tables.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import type { QueueWorkerDefinition } from '../../lib/app/workers.ts';
import { resourcesOfType, singleReference } from './template-helpers.ts';
import { stackSynthesizer, type Synthesized } from './synth.ts';

// Throttling at the edge and the import worker's reserved concurrency
// (docs/operations.md#throttling-and-concurrency), per stage profile and with context overrides.

// Only the import worker is reserved (infra/throttling.ts); the webhook worker's deliveries wait in their queue.
const QUEUE_WORKERS = WORKERS.filter((worker): worker is QueueWorkerDefinition => worker.trigger === 'queue' && worker.queue === IMPORT_QUEUE.id);

const synth = stackSynthesizer();

/** ReservedConcurrentExecutions of every function, by construct id of its ApiFunction. */
function reservations({ stack, template }: Synthesized): Map<string, unknown> {
  const byLogicalId = new Map(resourcesOfType(template, 'AWS::Lambda::Function').map(([id, fn]) => [id, fn.Properties.ReservedConcurrentExecutions]));
  const result = new Map<string, unknown>();
  for (const [operationId, fn] of [...stack.routeFunctions, ...stack.workerFunctions, ['$default', stack.fallbackFunction] as const]) {
    result.set(operationId, byLogicalId.get(singleReference(stack.resolve(fn.function.functionName))));
  }
  return result;
}

function stageSettings({ template }: Synthesized): unknown {
  const stages = resourcesOfType(template, 'AWS::ApiGatewayV2::Stage');
  expect(stages).toHaveLength(1);
  return stages[0]?.[1].Properties.DefaultRouteSettings;
}

describe.each([
  { stage: 'dev', rate: 50, burst: 100, reserved: undefined },
  { stage: 'staging', rate: 50, burst: 100, reserved: 4 },
  { stage: 'prod', rate: 500, burst: 1000, reserved: 4 },
])('stage $stage (profile defaults)', ({ stage, rate, burst, reserved }) => {
  let synthesized: Synthesized;

  beforeAll(() => {
    // Prepare + Act
    synthesized = synth({ stage });
  }, 120_000);

  it(`throttles the $default stage's default route at ${rate} requests/s, burst ${burst}`, () => {
    // Assess
    expect(stageSettings(synthesized)).toEqual({ ThrottlingRateLimit: rate, ThrottlingBurstLimit: burst });
  });

  it(`reserves ${reserved ?? 'no'} concurrency for the import worker and caps no other function`, () => {
    // Act
    const byFunction = reservations(synthesized);

    // Assess
    for (const [id, value] of byFunction) {
      expect(value, id).toBe(QUEUE_WORKERS.some((worker) => worker.id === id) ? reserved : undefined);
    }
  });
});

describe('context overrides', () => {
  let synthesized: Synthesized;

  beforeAll(() => {
    // Prepare + Act
    synthesized = synth({ stage: 'prod', apiThrottleRate: '7', apiThrottleBurst: '9', importWorkerReservedConcurrency: '6' });
  }, 120_000);

  it('sets the stage throttle and the reservation from context', () => {
    // Assess
    expect(stageSettings(synthesized)).toEqual({ ThrottlingRateLimit: 7, ThrottlingBurstLimit: 9 });
    for (const worker of QUEUE_WORKERS) expect(reservations(synthesized).get(worker.id)).toBe(6);
  });

  it('keeps the import worker event source within its reservation', () => {
    // Act
    const importQueueArn = synthesized.stack.resolve(synthesized.stack.importQueue.queueArn);
    const mappings = resourcesOfType(synthesized.template, 'AWS::Lambda::EventSourceMapping').filter(
      ([, mapping]) => JSON.stringify(mapping.Properties.EventSourceArn) === JSON.stringify(importQueueArn),
    );

    // Assess
    expect(mappings).toHaveLength(QUEUE_WORKERS.length);
    for (const [, mapping] of mappings) {
      const { MaximumConcurrency } = mapping.Properties.ScalingConfig as { MaximumConcurrency: number };
      expect(MaximumConcurrency).toBeLessThanOrEqual(6);
    }
  });
});

describe('reservedConcurrencyFor', () => {
  const worker = QUEUE_WORKERS[0] as QueueWorkerDefinition;
  const configWith = (value: string | undefined) => resolveStageConfig((key) => ({ stage: 'dev', importWorkerReservedConcurrency: value })[key]);

  it('reserves nothing when the stage says none', () => {
    // Act + Assess
    expect(reservedConcurrencyFor(worker, configWith('none'))).toBeUndefined();
  });

  it("accepts exactly the worker's maxConcurrency and refuses one less (Lambda would throttle the event source)", () => {
    // Act + Assess
    expect(reservedConcurrencyFor(worker, configWith(String(worker.maxConcurrency)))).toBe(worker.maxConcurrency);
    expect(() => reservedConcurrencyFor(worker, configWith(String(worker.maxConcurrency - 1)))).toThrow(
      new RegExp(`reserved concurrency ${worker.maxConcurrency - 1} is below its event source's maxConcurrency ${worker.maxConcurrency}`),
    );
  });

  it('fails the synth of a stage whose reservation is below the event source', () => {
    // Act + Assess
    expect(() => synth({ stage: 'dev', importWorkerReservedConcurrency: String(worker.maxConcurrency - 1) })).toThrow(/below its event source/);
  });

  it('passes the stage throttle through', () => {
    // Act + Assess
    expect(stageThrottle(configWith(undefined))).toEqual({ rateLimit: 50, burstLimit: 100 });
  });
});
