import { describe, expect, it } from 'vitest';
import {
  AWS_API_WRITE,
  AWS_IMPORT_CHUNK,
  minimumCommitGapMs,
  simulateTenantWriters,
  type WorkloadProfile,
} from '../../../bench/models/counter-contention-model.ts';

const WORKLOADS: WorkloadProfile[] = [AWS_API_WRITE, AWS_IMPORT_CHUNK];

describe('counter contention model (docs/performance.md "Scaling one tenant")', () => {
  it('gives the same figures for the same seed, and others for another seed', () => {
    // Prepare
    const options = { workload: AWS_API_WRITE, writers: 4, durationMs: 20_000 };

    // Act
    const first = simulateTenantWriters({ ...options, seed: 7 });
    const again = simulateTenantWriters({ ...options, seed: 7 });
    const other = simulateTenantWriters({ ...options, seed: 8 });

    // Assess
    expect(again).toEqual(first);
    expect(other).not.toEqual(first);
  });

  it.each(WORKLOADS)('has no conflicts with one writer: $name', (workload) => {
    // Act
    const result = simulateTenantWriters({ workload, writers: 1, durationMs: 30_000, seed: 1 });

    // Assess
    expect(result.commits).toBeGreaterThan(100);
    expect(result.transactionAttempts).toBe(result.commits);
    expect(result.conflictRate).toBe(0);
    expect(result.gaveUp).toBe(0);
  });

  it.each(WORKLOADS)('never commits faster than the serial bound, whatever the writer count: $name', (workload) => {
    // Prepare
    const durationMs = 30_000;
    const mostCommits = 1 + durationMs / minimumCommitGapMs(workload);

    for (const writers of [1, 2, 4, 16, 64]) {
      // Act
      const result = simulateTenantWriters({ workload, writers, durationMs, seed: writers });

      // Assess
      expect(result.commits).toBeLessThanOrEqual(mostCommits);
      expect(result.transactionsPerSecond).toBeLessThanOrEqual(result.serialBoundTransactionsPerSecond + 1000 / durationMs);
    }
  });

  it('counts cancelled transactions once writers contend', () => {
    // Act
    const result = simulateTenantWriters({ workload: AWS_API_WRITE, writers: 16, durationMs: 20_000, seed: 3 });

    // Assess
    expect(result.conflictRate).toBeGreaterThan(0.5);
    expect(result.transactionAttempts).toBeGreaterThan(result.commits);
    expect(result.latencyP99Ms).toBeGreaterThan(result.latencyP50Ms);
  });
});
