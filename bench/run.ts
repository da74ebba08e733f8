import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startStack } from './local-stack.ts';
import { barcodesSuite } from './suites/barcodes.ts';
import { bomCreatesSuite } from './suites/bom-creates.ts';
import { catalogWritesSuite } from './suites/catalog-writes.ts';
import { buildsSuite } from './suites/builds.ts';
import { bundlesSuite } from './suites/bundles.ts';
import { coldStartSuite } from './suites/cold-start.ts';
import { exportsSuite } from './suites/exports.ts';
import { feedSuite } from './suites/feed.ts';
import { importLimitsSuite, importsSuite } from './suites/imports.ts';
import { lotTraceSuite } from './suites/lot-trace.ts';
import { middlewareOverheadSuite } from './suites/middleware-overhead.ts';
import { requestsSuite } from './suites/requests.ts';
import { reservationsSuite } from './suites/reservations.ts';
import { stockAdjustmentsSuite } from './suites/stock-adjustments.ts';
import { meets, type Measure, type Suite, type SuiteResult } from './suites/suite.ts';
import { tenantCeilingSuite } from './suites/tenant-ceiling.ts';
import { tenantWritersSuite } from './suites/tenant-writers.ts';
import { webhooksSuite } from './suites/webhooks.ts';

/**
 * `npm run bench` (docs/performance.md "Running the benchmarks"): every suite against one
 * in-memory local stack, then `bench/results/latest.json` and a Markdown table of every figure
 * with its target. `--quick` is the smoke mode CI runs (small sizes, one run, results written
 * under `bench/results/quick.json`, which git ignores); `--only <suite,…>` runs some suites.
 * A target missed does not fail the run: the table says it, docs/performance.md explains it.
 */

const SUITES: Suite[] = [
  bundlesSuite,
  requestsSuite,
  coldStartSuite,
  middlewareOverheadSuite,
  feedSuite,
  barcodesSuite,
  importsSuite,
  importLimitsSuite,
  exportsSuite,
  lotTraceSuite,
  stockAdjustmentsSuite,
  reservationsSuite,
  bomCreatesSuite,
  catalogWritesSuite,
  buildsSuite,
  tenantCeilingSuite,
  tenantWritersSuite,
  webhooksSuite,
];

function argument(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

function verdict(measure: Measure): string {
  const met = meets(measure);
  if (met === undefined) return '';
  return `${met ? 'met' : 'MISSED'} (${measure.target?.comparison} ${measure.target?.value})`;
}

/** Four significant digits at most: the table is for reading, the JSON keeps every digit. */
const readable = (value: number) => (Number.isInteger(value) ? String(value) : String(Number(value.toPrecision(4))));

export function markdownTable(results: readonly SuiteResult[]): string {
  const lines = ['| Suite | Measure | Value | Target | Notes |', '|---|---|---:|---|---|'];
  for (const { suite, measures } of results) {
    for (const measure of measures)
      lines.push(`| ${suite} | ${measure.name} | ${readable(measure.value)} ${measure.unit} | ${verdict(measure)} | ${measure.note ?? ''} |`);
  }
  return lines.join('\n');
}

async function main(): Promise<void> {
  const quick = process.argv.includes('--quick');
  const only = argument('--only')?.split(',');
  const suites = only ? SUITES.filter((suite) => only.includes(suite.name)) : SUITES;
  const started = Date.now();
  const stack = await startStack();
  Object.assign(process.env, stack.env, { LOG_LEVEL: 'silent' });
  const results: SuiteResult[] = [];
  try {
    for (const suite of suites) {
      const suiteStarted = performance.now();
      console.error(`bench: ${suite.name}…`);
      const measures = await suite.run({ quick, stack, log: (line) => console.error(`  ${line}`) });
      results.push({ suite: suite.name, measures });
      console.error(`bench: ${suite.name} done in ${((performance.now() - suiteStarted) / 1000).toFixed(1)} s`);
    }
  } finally {
    await stack.stop();
  }
  const report = {
    mode: quick ? 'quick' : 'full',
    startedAt: new Date(started).toISOString(),
    seconds: Math.round((Date.now() - started) / 1000),
    machine: {
      node: process.version,
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? 'unknown',
      memoryGiB: Math.round(totalmem() / 2 ** 30),
      platform: `${process.platform} ${process.arch}`,
    },
    results,
  };
  const output = argument('--out') ?? join(dirname(fileURLToPath(import.meta.url)), 'results', quick ? 'quick.json' : 'latest.json');
  mkdirSync(dirname(output), { recursive: true });
  writeFileSync(output, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(output.replace(/\.json$/, '.md'), `${markdownTable(results)}\n`);
  console.log(markdownTable(results));
  console.log(`\nbench: ${report.mode} run of ${suites.length} suites in ${report.seconds} s; results in ${output}`);
  const missing = results.flatMap((result) => result.measures).filter((measure) => Number.isNaN(measure.value));
  if (missing.length > 0) throw new Error(`bench: no figure for ${missing.map((measure) => measure.name).join(', ')}`);
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : error);
  process.exitCode = 1;
});
