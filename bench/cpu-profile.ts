import { readdirSync, readFileSync } from 'node:fs';
import { SourceMap, type SourceMapPayload } from 'node:module';
import { join } from 'node:path';
import { median } from './suites/suite.ts';

/**
 * Breaks down the cold-start profiles the cold-start suite keeps with `BENCH_CPU_PROF_DIR`
 * (docs/performance.md "Cold start"): per phase (module import, first request), the modules
 * that took the most CPU by self time and by total time (on the stack), as medians over the
 * runs, mapped to their sources through the bundle's source map.
 *
 *   npx tsx bench/cpu-profile.ts <dir>/<route> [prefix (e.g. `run-` or `source-maps-run-`)] [rows]
 *
 * Node's own modules are named by built-in (`node:https`); with `DETAIL=1` also by function, which
 * tells compiling the bundle (`compileSourceTextModule`) from loading built-ins
 * (`compileForInternalLoader`).
 */

const DETAIL = process.env.DETAIL === '1';

interface ProfileNode {
  id: number;
  callFrame: { url: string; lineNumber: number; columnNumber: number; functionName: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

type Phase = 'import' | 'first request';
const PHASES: readonly Phase[] = ['import', 'first request'];

/** A source's module: an npm package by name, our code by path, Node's own and V8's by kind. */
function moduleOf(source: string): string {
  const packagePath = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(source);
  if (packagePath) return packagePath[1]!;
  const ours = /(?:^|\/)((?:lib|functions|infra)\/.+)$/.exec(source);
  return ours ? ours[1]! : source;
}

function frameModule(frame: ProfileNode['callFrame'], map: SourceMap): string {
  if (frame.url.endsWith('index.mjs')) {
    const entry = map.findEntry(frame.lineNumber, frame.columnNumber);
    return 'originalSource' in entry ? moduleOf(entry.originalSource) : '(bundle, unmapped)';
  }
  if (frame.url.startsWith('node:')) return DETAIL ? `${frame.url} ${frame.functionName}` : frame.url;
  // V8's own entries are named in parentheses: (garbage collector), (program), (idle), (root).
  if (frame.url === '') return frame.functionName.startsWith('(') ? frame.functionName : DETAIL ? `(native) ${frame.functionName}` : '(native)';
  return frame.url.includes('child.mjs') ? '(bench child)' : frame.url;
}

/** Milliseconds of self and total time per module in each phase of one run. */
function breakdown(
  profile: CpuProfile,
  marks: Record<string, number>,
  map: SourceMap,
): Record<Phase, { self: Map<string, number>; total: Map<string, number> }> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const moduleCache = new Map<number, string>();
  const moduleOfNode = (id: number) => {
    let known = moduleCache.get(id);
    if (known === undefined) moduleCache.set(id, (known = frameModule(byId.get(id)!.callFrame, map)));
    return known;
  };
  const result = Object.fromEntries(PHASES.map((phase) => [phase, { self: new Map<string, number>(), total: new Map<string, number>() }])) as ReturnType<
    typeof breakdown
  >;
  let time = profile.startTime;
  profile.samples.forEach((sample, index) => {
    time += profile.timeDeltas[index] ?? 0;
    // A sample's time is the interval up to the next one.
    const took = (profile.timeDeltas[index + 1] ?? 0) / 1000;
    const phase: Phase | undefined =
      time >= marks.started! && time < marks.imported! ? 'import' : time >= marks.imported! && time < marks.served! ? 'first request' : undefined;
    if (!phase) return;
    const { self, total } = result[phase];
    self.set(moduleOfNode(sample), (self.get(moduleOfNode(sample)) ?? 0) + took);
    const onStack = new Set<string>();
    for (let id: number | undefined = sample; id !== undefined; id = parent.get(id)) onStack.add(moduleOfNode(id));
    for (const name of onStack) total.set(name, (total.get(name) ?? 0) + took);
  });
  return result;
}

function main(): void {
  const [directory, prefix = 'run-', rowsArgument = '12'] = process.argv.slice(2);
  if (!directory) throw new Error('usage: npx tsx bench/cpu-profile.ts <dir>/<route> [prefix] [rows]');
  const map = new SourceMap(JSON.parse(readFileSync(join(directory, 'index.mjs.map'), 'utf8')) as SourceMapPayload);
  const runs = readdirSync(directory).filter((file) => file.startsWith(prefix) && file.endsWith('.cpuprofile'));
  const perRun = runs.map((file) => {
    const profile = JSON.parse(readFileSync(join(directory, file), 'utf8')) as CpuProfile;
    const marks = JSON.parse(readFileSync(join(directory, file.replace(/\.cpuprofile$/, '.marks.json')), 'utf8')) as Record<string, number>;
    return {
      breakdown: breakdown(profile, marks, map),
      phaseMs: { import: (marks.imported! - marks.started!) / 1000, 'first request': (marks.served! - marks.imported!) / 1000 },
    };
  });
  for (const phase of PHASES) {
    console.log(`\n${phase}: median ${median(perRun.map((run) => run.phaseMs[phase])).toFixed(1)} ms over ${perRun.length} profiled runs`);
    for (const kind of ['self', 'total'] as const) {
      const names = new Set(perRun.flatMap((run) => [...run.breakdown[phase][kind].keys()]));
      const rows = [...names]
        .map((name) => [name, median(perRun.map((run) => run.breakdown[phase][kind].get(name) ?? 0))] as const)
        .sort((a, b) => b[1] - a[1]);
      console.log(`  by ${kind} time:`);
      for (const [name, ms] of rows.slice(0, Number(rowsArgument))) console.log(`    ${ms.toFixed(1).padStart(6)} ms  ${name}`);
    }
  }
}

main();
