import { describe, expect, it } from 'vitest';
import {
  closedLoopBound,
  SEQUENCED_API_WRITE,
  SEQUENCED_IMPORT_CHUNK,
  SEQUENCER_PROTOCOL,
  simulateSequencedWriters,
  type SequencerWorkload,
} from '../../../bench/models/sequencer-model.ts';

const WORKLOADS: SequencerWorkload[] = [SEQUENCED_API_WRITE, SEQUENCED_IMPORT_CHUNK];

describe('sequencer model (docs/performance.md "Scaling one tenant")', () => {
  it('gives the same figures for the same seed, and others for another seed', () => {
    // Prepare
    const options = { workload: SEQUENCED_API_WRITE, protocol: SEQUENCER_PROTOCOL, writers: 8, durationMs: 10_000 };

    // Act
    const first = simulateSequencedWriters({ ...options, seed: 7 });
    const again = simulateSequencedWriters({ ...options, seed: 7 });
    const other = simulateSequencedWriters({ ...options, seed: 8 });

    // Assess
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it.each(WORKLOADS)('a lone writer numbers each commit at once, with no lease, no Query and nothing cancelled: $name', (workload) => {
    // Act
    const result = simulateSequencedWriters({ workload, protocol: SEQUENCER_PROTOCOL, writers: 1, durationMs: 20_000, seed: 1 });

    // Assess
    expect(result.commits).toBeGreaterThan(100);
    expect(result.cancelledPerCommit).toBe(0);
    expect(result.requestsPerCommit.queries).toBe(0);
    expect(result.requestsPerCommit.leaseAsks).toBe(0);
    expect(result.sequencingTransactions).toBe(result.commits);
  });

  it.each(WORKLOADS)('never answers faster than the closed-loop bound, whatever the writer count: $name', (workload) => {
    for (const writers of [1, 4, 16, 64]) {
      // Act
      const result = simulateSequencedWriters({ workload, protocol: SEQUENCER_PROTOCOL, writers, durationMs: 20_000, seed: writers });

      // Assess: the bound takes each step at its mean, so a run may beat it only by chance, and barely.
      expect(result.transactionsPerSecond).toBeLessThanOrEqual(closedLoopBound(workload, writers) * 1.05);
      expect(result.gaveUp).toBe(0);
    }
  });

  it('many writers: commits are numbered many to a transaction, through the lease, with almost nothing cancelled', () => {
    // Act
    const result = simulateSequencedWriters({ workload: SEQUENCED_API_WRITE, protocol: SEQUENCER_PROTOCOL, writers: 64, durationMs: 20_000, seed: 3 });

    // Assess
    expect(result.commitsPerSequencing).toBeGreaterThan(10);
    expect(result.requestsPerCommit.leaseAsks).toBeGreaterThan(0);
    expect(result.cancelledPerCommit).toBeLessThan(0.05);
    // No partition key past DynamoDB's 1,000 WCU/s in any second.
    expect(Math.max(result.busiestWcu.sequencer, result.busiestWcu.pendingShard, result.busiestWcu.eventsKey)).toBeLessThan(1000);
  });

  it('without the quiet path every commit waits for a pass of the lease holder', () => {
    // Act
    const result = simulateSequencedWriters({
      workload: SEQUENCED_API_WRITE,
      protocol: { ...SEQUENCER_PROTOCOL, directWhenQuiet: false },
      writers: 1,
      durationMs: 20_000,
      seed: 1,
    });

    // Assess
    expect(result.requestsPerCommit.leaseAsks).toBeCloseTo(1, 1);
    expect(result.requestsPerCommit.queries).toBeCloseTo(SEQUENCER_PROTOCOL.pendingShards, 0);
  });
});
