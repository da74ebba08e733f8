import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { REPO_ROOT } from '../../infra/api-function.ts';
import { buildLambdaAsset } from '../../infra/on-demand-modules.ts';
import { routeById, type RouteId } from '../../lib/routes/index.ts';
import { apiGatewayEvent } from '../../local/api-gateway-events.ts';
import { median, type Measure, type Suite } from './suite.ts';
import { createTenant } from './tenant.ts';

/**
 * Cold start (docs/performance.md "Cold start"): a fresh Node 22 process imports a function's
 * deployed bundle and serves its first request against the local stack, then a few warm ones.
 * "Added" is import + first request − a warm request, measured inside the process; the process's
 * whole wall time is also compared with a bare `node -e ''`. With and without
 * `--enable-source-maps`, to decide about it with figures.
 *
 * `BENCH_CPU_PROF_DIR=<dir>` also profiles every child (`node --cpu-prof`) and keeps, per route,
 * the bundle with its source map, each run's profile and the run's phase marks there;
 * `npx tsx bench/cpu-profile.ts <dir>/<route>` breaks them down by module and phase.
 */

const ROUTES: readonly RouteId[] = ['getBom', 'listEvents', 'renderBarcode'];
const COLD_TARGET_MS = 75;
/** A QR request also loads its encoder (lib/domain/labels/encoder-modules.ts) on its first request. */
const COLD_TARGET_MS_OF: Partial<Record<RouteId, number>> = { renderBarcode: 90 };
const QUERY_OF: Partial<Record<RouteId, string>> = { listEvents: 'limit=50', renderBarcode: 'format=qr&payload=itm_01JD5R3Q6T9XW2K4M8N0000001' };

/** The child: imports the bundle, serves one request, then five warm ones, prints timings. */
const CHILD = `
const mark = () => Number(process.hrtime.bigint() / 1000n);
const marks = { started: mark() };
const started = performance.now();
const { handler } = await import(process.env.BENCH_BUNDLE);
const imported = performance.now();
marks.imported = mark();
const event = JSON.parse(process.env.BENCH_EVENT);
const context = () => ({ awsRequestId: crypto.randomUUID(), functionName: 'bench', getRemainingTimeInMillis: () => 10000, callbackWaitsForEmptyEventLoop: false });
const first = await handler({ ...event }, context());
const served = performance.now();
marks.served = mark();
if (first.statusCode !== 200) { console.error(first.statusCode, first.body); process.exit(2); }
const warm = [];
for (let i = 0; i < 5; i += 1) { const t = performance.now(); await handler({ ...event }, context()); warm.push(performance.now() - t); }
warm.sort((a, b) => a - b);
console.log(JSON.stringify({ importMs: imported - started, firstMs: served - imported, warmMs: warm[2], marks }));
process.exit(0);
`;

interface Timings {
  importMs: number;
  firstMs: number;
  warmMs: number;
  wallMs: number;
}

function runNode(args: string[], env: Record<string, string>): Promise<{ stdout: string; wallMs: number }> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (code) => (code === 0 ? resolve({ stdout, wallMs: performance.now() - started }) : reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr}`))));
  });
}

/** The route's asset as deployed (its on-demand modules included); returns the entry file. */
async function writeBundle(route: RouteId, directory: string): Promise<string> {
  const target = join(directory, route);
  mkdirSync(target, { recursive: true });
  const asset = await buildLambdaAsset(join(REPO_ROOT, routeById(route).handler), target);
  return join(target, asset.entry.name);
}

export const coldStartSuite: Suite = {
  name: 'cold start',
  async run(context) {
    const runs = context.quick ? 1 : 7;
    const tenant = await createTenant(context.stack);
    const profiles = process.env.BENCH_CPU_PROF_DIR;
    const directory = profiles ?? mkdtempSync(join(tmpdir(), 'bench-cold-'));
    mkdirSync(directory, { recursive: true });
    const measures: Measure[] = [];
    try {
      const childFile = join(directory, 'child.mjs');
      writeFileSync(childFile, CHILD);
      const bare: number[] = [];
      for (let run = 0; run < runs; run += 1) bare.push((await runNode(['-e', ''], {})).wallMs);
      measures.push({ name: 'bare node process, wall', value: round(median(bare)), unit: 'ms' });
      for (const route of ROUTES) {
        const bundle = await writeBundle(route, directory);
        const path = route === 'getBom' ? `/v1/boms/${tenant.bomId}` : undefined;
        const event = apiGatewayEvent(routeById(route), { path, key: tenant.key, query: QUERY_OF[route] ?? '' });
        event.requestContext.requestId = randomUUID();
        for (const sourceMaps of [false, true]) {
          const samples: Timings[] = [];
          for (let run = 0; run < runs; run += 1) {
            const env = { ...context.stack.env, LOG_LEVEL: 'silent', BENCH_BUNDLE: bundle, BENCH_EVENT: JSON.stringify(event), NODE_OPTIONS: sourceMaps ? '--enable-source-maps' : '' };
            const profile = profiles ? profileArguments(dirname(bundle), `${sourceMaps ? 'source-maps-' : ''}run-${run}`) : [];
            const { stdout, wallMs } = await runNode([...profile, childFile], env);
            const { marks, ...timings } = JSON.parse(stdout) as Omit<Timings, 'wallMs'> & { marks: Record<string, number> };
            if (profiles) writeFileSync(join(dirname(bundle), `${sourceMaps ? 'source-maps-' : ''}run-${run}.marks.json`), JSON.stringify(marks));
            samples.push({ ...timings, wallMs });
          }
          const label = `${routeById(route).method} ${routeById(route).path}${sourceMaps ? ' with --enable-source-maps' : ''}`;
          const added = samples.map((sample) => sample.importMs + sample.firstMs - sample.warmMs);
          measures.push(
            { name: `${label}: cold start added (import + first − warm)`, value: round(median(added)), unit: 'ms', target: sourceMaps ? undefined : { comparison: '<=', value: COLD_TARGET_MS_OF[route] ?? COLD_TARGET_MS } },
            { name: `${label}: module import`, value: round(median(samples.map((sample) => sample.importMs))), unit: 'ms' },
            { name: `${label}: first request`, value: round(median(samples.map((sample) => sample.firstMs))), unit: 'ms' },
            { name: `${label}: warm request`, value: round(median(samples.map((sample) => sample.warmMs))), unit: 'ms' },
            { name: `${label}: process wall − bare node`, value: round(median(samples.map((sample) => sample.wallMs)) - median(bare)), unit: 'ms', note: 'includes the five warm requests' },
          );
          context.log(`cold start: ${label} measured (${runs} runs)`);
        }
      }
    } finally {
      if (!profiles) rmSync(directory, { recursive: true, force: true });
    }
    return measures;
  },
};

/** A sample every 100 µs: the default 1 ms would leave a cold start of ~100 ms with ~100 samples. */
function profileArguments(directory: string, name: string): string[] {
  return ['--cpu-prof', `--cpu-prof-dir=${directory}`, `--cpu-prof-name=${name}.cpuprofile`, '--cpu-prof-interval=100'];
}

const round = (value: number) => Math.round(value * 10) / 10;
