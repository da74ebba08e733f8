import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, ScheduledEvent } from 'aws-lambda';
import type { ScheduledWorkerDefinition } from '../lib/app/workers.ts';
import { lambdaContext } from './lambda-event.ts';
import { invokeWithTimeout } from './load-handler.ts';

/**
 * The local stand-in for the EventBridge rules of the scheduled workers (lib/app/workers.ts): runs
 * each worker's handler every `everySeconds` with a ScheduledEvent-shaped event. Runs of one
 * worker never overlap: a run that outlasts the period is followed by the next one right after
 * (missed ticks are not queued up). A run counts as over when the handler settles or its timeout
 * passes, as Lambda would end it. Errors are logged; the schedule keeps going.
 */

export type ScheduledWorkerHandler = (event: ScheduledEvent, context: Context) => Promise<unknown>;

export interface SchedulerOptions {
  workers: readonly ScheduledWorkerDefinition[];
  /** Resolves the handler of `worker.handler` (load-handler.ts caches). */
  loadHandler: (entry: string) => Promise<ScheduledWorkerHandler>;
  /** Overrides every worker's period (seconds, may be fractional), e.g. from LOCAL_SWEEP_SECONDS. */
  everySeconds?: number;
  /** Failures. Default: console.error. */
  log?: (line: string) => void;
  /** Default AWS_REGION or us-east-1. */
  region?: string;
}

export interface Scheduler {
  /** Cancels future runs and waits for the runs in progress. */
  stop(): Promise<void>;
}

/** Reads a period override such as LOCAL_SWEEP_SECONDS; undefined when unset or empty. */
export function periodOverride(value: string | undefined, name = 'LOCAL_SWEEP_SECONDS'): number | undefined {
  if (value === undefined || value.trim() === '') return undefined;
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0) throw new Error(`${name} must be a positive number of seconds, got '${value}'.`);
  return seconds;
}

/** What EventBridge sends for a `rate(...)` rule. */
export function scheduledEvent(worker: ScheduledWorkerDefinition, region: string, now = new Date()): ScheduledEvent {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: '000000000000',
    time: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    region,
    resources: [`arn:aws:events:${region}:000000000000:rule/local-${worker.id}`],
    detail: {},
  };
}

export function startScheduler(options: SchedulerOptions): Scheduler {
  const log = options.log ?? ((line: string) => console.error(line));
  const region = options.region ?? process.env.AWS_REGION ?? 'us-east-1';
  const stopSignal = new AbortController();
  let stopping = false;

  async function runOnce(worker: ScheduledWorkerDefinition): Promise<void> {
    const timeoutMs = worker.timeoutSeconds * 1000;
    try {
      const handler = await options.loadHandler(worker.handler);
      await invokeWithTimeout(handler, scheduledEvent(worker, region), lambdaContext(worker.id, randomUUID(), timeoutMs), timeoutMs);
    } catch (error) {
      log(`[${worker.id}] scheduled run failed: ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`);
    }
  }

  async function loop(worker: ScheduledWorkerDefinition): Promise<void> {
    const periodMs = (options.everySeconds ?? worker.everySeconds) * 1000;
    if (!(periodMs > 0)) throw new Error(`${worker.id}: the period must be positive`);
    // Like a new EventBridge rule: the first run comes one period after the start.
    let next = Date.now() + periodMs;
    while (!stopping) {
      await sleep(Math.max(0, next - Date.now()), undefined, { signal: stopSignal.signal }).catch(() => undefined);
      if (stopping) break;
      const started = Date.now();
      await runOnce(worker);
      next = started + periodMs;
    }
  }

  const loops = options.workers.map((worker) => loop(worker).catch((error: unknown) => log(`[${worker.id}] scheduler stopped: ${(error as Error).message}`)));
  let stopped: Promise<void> | undefined;
  return {
    stop() {
      stopping = true;
      stopSignal.abort();
      stopped ??= Promise.all(loops).then(() => undefined);
      return stopped;
    },
  };
}
