import {
  AWS_API_WRITE,
  AWS_IMPORT_CHUNK,
  MAX_ATTEMPTS,
  minimumCommitGapMs,
  simulateTenantWriters,
  type WorkloadProfile,
} from '../models/counter-contention-model.ts';
import {
  closedLoopBound,
  GIVE_UP_MS,
  SEQUENCED_API_WRITE,
  SEQUENCED_IMPORT_CHUNK,
  SEQUENCER_PROTOCOL,
  simulateSequencedWriters,
  type SequencerWorkload,
} from '../models/sequencer-model.ts';
import type { Measure, Suite } from './suite.ts';

/**
 * One tenant's write ceiling on AWS (docs/performance.md "Scaling one tenant"), from two seeded
 * discrete-event models with published AWS latencies, for API writes and for import chunks:
 * - today's write path (bench/models/counter-contention-model.ts): every write of an organization
 *   passes its event-sequence counter, so its writers serialize on one item; 1, 4 and 16 writers;
 * - numbering events after the commit (bench/models/sequencer-model.ts): commits share no item,
 *   and a sequencer numbers what is pending in one transaction per batch; 1, 4, 16 and 64 writers.
 * Deterministic: the same seed gives the same figures on any machine; quick mode only simulates
 * less time.
 */

const COUNTER_WRITERS = [1, 4, 16] as const;
const SEQUENCED_WRITERS = [1, 4, 16, 64] as const;
const SEED = 26;
/** DynamoDB's per-partition write limit; every event of an organization is in one partition. */
const PARTITION_WCU = 1000;
/** A transactional write of an item up to 1 KB (an event is well under it) costs 2 WCU. */
const WCU_PER_EVENT = 2;

const percent = (value: number) => Math.round(value * 1000) / 10;
const round = (value: number) => Math.round(value * 10) / 10;
const writersLabel = (label: string, writers: number) => `${label}, ${writers} writer${writers === 1 ? '' : 's'}`;

function counterMeasures(workload: WorkloadProfile, durationMs: number, label: string, rows: boolean): Measure[] {
  const measures: Measure[] = [];
  for (const writers of COUNTER_WRITERS) {
    const result = simulateTenantWriters({ workload, writers, durationMs, seed: SEED });
    const name = writersLabel(label, writers);
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

/** Targets of the design (docs/performance.md "Scaling one tenant"): 64 API writers ≥ 1,000 tx/s, p99 ≤ 150 ms; 16 import writers ≥ 5,000 rows/s. */
function sequencedMeasures(workload: SequencerWorkload, durationMs: number, label: string, rows: boolean): Measure[] {
  const measures: Measure[] = [];
  const writerCounts = rows ? SEQUENCED_WRITERS.filter((writers) => writers <= 16) : SEQUENCED_WRITERS;
  for (const writers of writerCounts) {
    const result = simulateSequencedWriters({ workload, protocol: SEQUENCER_PROTOCOL, writers, durationMs, seed: SEED });
    const name = writersLabel(label, writers);
    const commands = result.commits + result.gaveUp;
    const steps = result.requestsPerCommit;
    const at = (count: number) => writers === count;
    measures.push(
      rows
        ? {
            name: `${name}: rows/s`,
            value: round(result.rowsPerSecond),
            unit: 'rows/s',
            ...(at(16) ? { target: { comparison: '>=' as const, value: 5000 } } : {}),
            note: `${round(result.transactionsPerSecond)} tx/s; closed-loop bound ${Math.round(closedLoopBound(workload, writers) * workload.rowsPerCommit)} rows/s`,
          }
        : {
            name: `${name}: tx/s`,
            value: round(result.transactionsPerSecond),
            unit: 'tx/s',
            ...(at(64) ? { target: { comparison: '>=' as const, value: 1000 } } : {}),
            note: `closed-loop bound ${Math.round(closedLoopBound(workload, writers))} tx/s`,
          },
      {
        name: `${name}: cancelled transactions per commit`,
        value: Math.round(result.cancelledPerCommit * 1000) / 1000,
        unit: 'tx',
        note: `${round(result.commitsPerSequencing)} commits numbered per sequencing transaction`,
      },
      { name: `${name}: latency p50`, value: round(result.latencyP50Ms), unit: 'ms', note: 'first build to its events numbered (the answer)' },
      {
        name: `${name}: latency p99`,
        value: round(result.latencyP99Ms),
        unit: 'ms',
        ...(at(64) && !rows ? { target: { comparison: '<=' as const, value: 150 } } : {}),
      },
      {
        name: `${name}: gave up`,
        value: percent(commands === 0 ? 0 : result.gaveUp / commands),
        unit: '%',
        ...(at(64) && !rows ? { target: { comparison: '<=' as const, value: 0 } } : {}),
        note: `not numbered within ${GIVE_UP_MS / 1000} s`,
      },
      {
        name: `${name}: requests per commit`,
        value: round(steps.commit + steps.looks + steps.leaseAsks + steps.queries + steps.sequencing),
        unit: 'requests',
        note: `commit ${round(steps.commit)}, looks ${round(steps.looks)}, lease asks ${round(steps.leaseAsks)}, shard queries ${round(steps.queries)}, sequencing ${Math.round(steps.sequencing * 1000) / 1000}; busiest second: sequencer item ${result.busiestWcu.sequencer} WCU and ${result.sequencerRcu} RCU, a pending shard ${result.busiestWcu.pendingShard} WCU, an events key ${result.busiestWcu.eventsKey} WCU (of ${PARTITION_WCU})`,
      },
    );
  }
  return measures;
}

export const tenantCeilingSuite: Suite = {
  name: 'tenant ceiling',
  run(context) {
    const durationMs = context.quick ? 20_000 : 300_000;
    const measures = [
      ...counterMeasures(AWS_API_WRITE, durationMs, 'API writes', false),
      ...counterMeasures(AWS_IMPORT_CHUNK, durationMs, 'items import chunks', true),
      ...sequencedMeasures(SEQUENCED_API_WRITE, durationMs, 'numbered after the commit (modelled): API writes', false),
      ...sequencedMeasures(SEQUENCED_IMPORT_CHUNK, durationMs, 'numbered after the commit (modelled): items import chunks', true),
    ];
    context.log(`tenant ceiling: ${durationMs / 1000} s simulated per writer count, seed ${SEED}`);
    return Promise.resolve(measures);
  },
};
