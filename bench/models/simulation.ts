/**
 * What the tenant models (bench/models/counter-contention-model.ts, bench/models/sequencer-model.ts)
 * share: a seeded random source, latencies drawn from published figures, an agenda of timed
 * actions, and the published DynamoDB round trips they draw from. Deterministic: the same seed
 * gives the same figures on any machine.
 */

/** A latency distribution: a floor plus a log-normal excess fitted to a median and a p99. */
export interface LatencyProfile {
  floorMs: number;
  medianMs: number;
  p99Ms: number;
}

const Z_99 = 2.3263;

/** mulberry32: a small seeded generator, so every figure is reproducible from its seed. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The mean of a profile's distribution (a log-normal's mean is its median × e^(σ²/2)). */
export function meanLatency(profile: LatencyProfile): number {
  const medianExcess = profile.medianMs - profile.floorMs;
  const sigma = Math.log((profile.p99Ms - profile.floorMs) / medianExcess) / Z_99;
  return profile.floorMs + medianExcess * Math.exp((sigma * sigma) / 2);
}

export function latencySampler(profile: LatencyProfile, random: () => number): () => number {
  const medianExcess = profile.medianMs - profile.floorMs;
  const sigma = Math.log((profile.p99Ms - profile.floorMs) / medianExcess) / Z_99;
  return () => {
    // Box-Muller; 1 − u keeps the logarithm's argument above zero.
    const normal = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    return profile.floorMs + medianExcess * Math.exp(sigma * normal);
  };
}

interface Scheduled {
  at: number;
  order: number;
  run: () => void;
}

/** A binary min-heap of scheduled actions by time, ties by scheduling order (determinism). */
export class Agenda {
  private readonly heap: Scheduled[] = [];
  private scheduled = 0;

  at(time: number, run: () => void): void {
    const entry = { at: time, order: (this.scheduled += 1), run };
    const heap = this.heap;
    heap.push(entry);
    for (let index = heap.length - 1; index > 0;) {
      const parent = (index - 1) >> 1;
      if (!earlier(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }

  next(): Scheduled | undefined {
    const heap = this.heap;
    const first = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last) {
      heap[0] = last;
      for (let index = 0; ;) {
        const left = 2 * index + 1;
        const right = left + 1;
        let smallest = index;
        if (left < heap.length && earlier(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && earlier(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === index) break;
        [heap[index], heap[smallest]] = [heap[smallest]!, heap[index]!];
        index = smallest;
      }
    }
    return first;
  }
}

const earlier = (a: Scheduled, b: Scheduled) => a.at < b.at || (a.at === b.at && a.order < b.order);

export function quantile(values: readonly number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * q))] ?? Number.NaN;
}

/**
 * Published TransactWriteItems round trips from a Lambda function in the table's region
 * (https://github.com/alexdebrie/dynamodb-performance-testing, 400 calls each): 5 items min 19.4,
 * p50 25.3, p99 92.5 ms; 25 items 23.5, 32.1, 97.5 ms; a failing transaction costs the same as a
 * committing one. No larger transaction is published: beyond 25 items the figures are extended
 * linearly (+0.205 ms floor, +0.34 ms p50, +0.25 ms p99 per item; 100 items: 38.9, 57.6, 116.3).
 */
export function transactionLatency(items: number): LatencyProfile {
  const beyond = Math.max(0, items - 5);
  return { floorMs: 19.4 + 0.205 * beyond, medianMs: 25.3 + 0.34 * beyond, p99Ms: 92.5 + 0.25 * beyond };
}

/** PutItem in the same measurements (min 5.47, p50 7.55, p99 16.2 ms): stands in for any single-item request, a GetItem or a Query of one page. */
export const SINGLE_ITEM_REQUEST: LatencyProfile = { floorMs: 5.47, medianMs: 7.55, p99Ms: 16.2 };
