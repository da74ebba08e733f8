import {
  AWS_API_WRITE,
  AWS_IMPORT_CHUNK,
  MAX_ATTEMPTS,
  minimumCommitGapMs,
  simulateTenantWriters,
  type WorkloadProfile,
} from '../models/counter-contention-model.ts';
import type { Measure, Suite } from './suite.ts';

/**
 * One tenant's write ceiling on AWS (docs/performance.md "Scaling one tenant"): every write of
 * an organization passes its event-sequence counter, so its writers serialize on one item. A
 * seeded discrete-event simulation (bench/models/counter-contention-model.ts) of 1, 4 and 16
 * writers with published AWS latencies, for API writes and for import chunks. Deterministic:
 * the same seed gives the same figures on any machine; quick mode only simulates less time.
 */

const WRITERS = [1, 4, 16] as const;
const SEED = 26;
/** DynamoDB's per-partition write limit; every event of an organization is in one partition. */
const PARTITION_WCU = 1000;
/** A transactional write of an item up to 1 KB (an event is well under it) costs 2 WCU. */
const WCU_PER_EVENT = 2;

const percent = (value: number) => Math.round(value * 1000) / 10;
const round = (value: number) => Math.round(value * 10) / 10;

function measuresOf(workload: WorkloadProfile, durationMs: number, label: string, rows: boolean): Measure[] {
  const measures: Measure[] = [];
  for (const writers of WRITERS) {
    const result = simulateTenantWriters({ workload, writers, durationMs, seed: SEED });
    const name = `${label}, ${writers} writer${writers === 1 ? '' : 's'}`;
    const commands = result.commits + result.gaveUp;
    measures.push(
      rows
        ? {
            name: `${name}: rows/s`,
            value: round(result.rowsPerSecond),
            unit: 'rows/s',
            note: `${round(result.transactionsPerSecond)} tx/s; events partition ${Math.round(result.eventsPerSecond * WCU_PER_EVENT)} of ${PARTITION_WCU} WCU/s`,
          }
        : { name: `${name}: tx/s`, value: round(result.transactionsPerSecond), unit: 'tx/s' },
      { name: `${name}: conflict rate`, value: percent(result.conflictRate), unit: '%', note: 'cancelled ÷ sent transactions' },
      { name: `${name}: latency p50`, value: round(result.latencyP50Ms), unit: 'ms', note: 'first build to commit, retries included' },
      { name: `${name}: latency p99`, value: round(result.latencyP99Ms), unit: 'ms' },
      {
        name: `${name}: gave up`,
        value: percent(commands === 0 ? 0 : result.gaveUp / commands),
        unit: '%',
        note: `after ${MAX_ATTEMPTS} attempts (WriteConflictError)`,
      },
    );
  }
  measures.push({ name: `${label}: serial bound`, value: round(1000 / minimumCommitGapMs(workload)), unit: 'tx/s', note: 'no writer count commits faster' });
  return measures;
}

export const tenantCeilingSuite: Suite = {
  name: 'tenant ceiling',
  run(context) {
    const durationMs = context.quick ? 20_000 : 300_000;
    const measures = [...measuresOf(AWS_API_WRITE, durationMs, 'API writes', false), ...measuresOf(AWS_IMPORT_CHUNK, durationMs, 'items import chunks', true)];
    context.log(`tenant ceiling: ${durationMs / 1000} s simulated per writer count, seed ${SEED}`);
    return Promise.resolve(measures);
  },
};
