import type { LocalStack } from '../local-stack.ts';

/**
 * One benchmark suite of `npm run bench` (docs/performance.md "Running the benchmarks"). A suite
 * measures, compares side by side in the same run where a baseline exists, and reports figures
 * and the targets they are held to. Figures are medians unless their name says otherwise.
 */

export interface BenchContext {
  /** `--quick`: the smoke mode CI runs, small sizes and few runs, so the suite cannot rot. */
  quick: boolean;
  /** The in-memory `npm start` every suite shares; its env is also in process.env. */
  stack: LocalStack;
  log(line: string): void;
}

export interface Measure {
  /** What was measured, e.g. `GET /v1/events cold start added (ms)`. */
  name: string;
  value: number;
  unit: string;
  /** The target it is held to, when it has one. */
  target?: { comparison: '<=' | '>='; value: number };
  /** How it was measured, in a few words (shown in the table). */
  note?: string;
}

export interface SuiteResult {
  suite: string;
  measures: Measure[];
}

export interface Suite {
  name: string;
  run(context: BenchContext): Promise<Measure[]>;
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

export function percentile(values: readonly number[], quantile: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * quantile))] ?? Number.NaN;
}

export function meets(measure: Measure): boolean | undefined {
  if (!measure.target) return undefined;
  return measure.target.comparison === '<=' ? measure.value <= measure.target.value : measure.value >= measure.target.value;
}
