/**
 * `npx tsx bench/bundle-sizes.ts`: builds every function of the stack (each route of
 * lib/app/routes.ts, each worker of lib/app/workers.ts and the `$default` fallback) exactly as the CDK
 * stack bundles it (infra/bundling.ts) and prints its minified size with the packages that weigh
 * most in it, and whether each function keeps within its budget (`HTTP_FUNCTION_BUDGET_BYTES`,
 * `WORKER_BUDGET_BYTES`, or its own ceiling in `BUNDLE_CEILINGS`). Sizes are in KB of 1000 bytes,
 * the unit of the budgets. A function with on-demand modules (infra/on-demand-modules.ts) is
 * measured by its entry; its modules are listed with their sizes. `--json` prints the sizes in bytes as one JSON object
 * instead.
 */
import type { Metafile } from 'esbuild';
import { join } from 'node:path';
import { BUNDLE_CEILINGS, HTTP_FUNCTION_BUDGET_BYTES, WORKER_BUDGET_BYTES } from '../infra/bundling.ts';
import { buildLambdaAsset, type BuiltFile } from '../infra/on-demand-modules.ts';
import { FALLBACK_FUNCTION_ID, FALLBACK_HANDLER, functionIdFor } from '../infra/customer-api-stack.ts';
import { REPO_ROOT } from '../infra/api-function.ts';
import { ROUTES } from '../lib/app/routes.ts';
import { WORKERS } from '../lib/app/workers.ts';

interface FunctionEntry {
  functionId: string;
  kind: string;
  entry: string;
  /** The most bytes allowed: the class's budget or the function's own ceiling (none for `$default`). */
  budget?: number;
}

/** The budget of a route or a worker (by operationId or worker id). */
function budgetOf(id: string, classBudget: number | undefined): number | undefined {
  return classBudget === undefined ? undefined : (BUNDLE_CEILINGS[id]?.bytes ?? classBudget);
}

const entries: FunctionEntry[] = [
  ...ROUTES.map((route) => ({
    functionId: functionIdFor(route.operationId),
    kind: `${route.method} ${route.path}`,
    entry: route.handler,
    budget: budgetOf(route.operationId, HTTP_FUNCTION_BUDGET_BYTES),
  })),
  ...WORKERS.map((worker) => ({
    functionId: functionIdFor(worker.id),
    kind: `worker (${worker.trigger})`,
    entry: worker.handler,
    budget: budgetOf(worker.id, WORKER_BUDGET_BYTES),
  })),
  { functionId: FALLBACK_FUNCTION_ID, kind: '$default', entry: FALLBACK_HANDLER },
];

/** `node_modules/@aws-sdk/client-s3/dist-es/…` → `@aws-sdk/client-s3`; our own files → `(own code)`. */
function packageOf(input: string): string {
  const at = input.lastIndexOf('node_modules/');
  if (at < 0) return '(own code)';
  const [first = '', second = ''] = input.slice(at + 'node_modules/'.length).split('/');
  return first.startsWith('@') ? `${first}/${second}` : first;
}

function packageWeights(metafile: Metafile): [string, number][] {
  const weights = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [input, { bytesInOutput }] of Object.entries(output.inputs)) {
      const name = packageOf(input);
      weights.set(name, (weights.get(name) ?? 0) + bytesInOutput);
    }
  }
  return [...weights].sort((a, b) => b[1] - a[1]);
}

const kb = (bytes: number) => `${(bytes / 1000).toFixed(0)} KB`;

export interface BundleSize {
  functionId: string;
  kind: string;
  /** `api`, `barcode` or `worker`: the budget class of docs/performance.md "Bundles". */
  role: 'api' | 'barcode' | 'worker' | 'fallback';
  bytes: number;
  heaviest: [string, number][];
  budget?: number;
  /** Files of the asset loaded on demand (e.g. `encoders/qrcode.mjs`), with their minified sizes. */
  onDemand: BuiltFile[];
}

function roleOf(entry: FunctionEntry): BundleSize['role'] {
  if (entry.functionId === FALLBACK_FUNCTION_ID) return 'fallback';
  if (entry.kind.startsWith('worker')) return 'worker';
  return entry.entry.includes('/labels/') ? 'barcode' : 'api';
}

/** Every function's minified bundle as deployed. */
export async function measureBundles(): Promise<BundleSize[]> {
  const results: BundleSize[] = [];
  for (const entry of entries) {
    const asset = await buildLambdaAsset(join(REPO_ROOT, entry.entry));
    const [entryBuild] = asset.metafiles;
    if (!entryBuild) throw new Error(`${entry.entry}: no entry build`);
    results.push({
      functionId: entry.functionId,
      kind: entry.kind,
      role: roleOf(entry),
      bytes: asset.entry.bytes,
      heaviest: packageWeights(entryBuild).slice(0, 4),
      budget: entry.budget,
      onDemand: asset.onDemand,
    });
  }
  return results;
}

const invokedDirectly = process.argv[1] !== undefined && import.meta.url.endsWith(process.argv[1].replace(/^.*\/bench\//, '/bench/'));
const results = invokedDirectly ? await measureBundles() : [];

if (!invokedDirectly) {
  // Imported by the bench suite: nothing to print.
} else if (process.argv.includes('--json')) {
  console.log(JSON.stringify(Object.fromEntries(results.map(({ functionId, bytes }) => [functionId, bytes])), null, 2));
} else {
  console.log(
    `| Function | Route / trigger | Minified | Budget (HTTP ${kb(HTTP_FUNCTION_BUDGET_BYTES)}, worker ${kb(WORKER_BUDGET_BYTES)}) | Heaviest parts |`,
  );
  console.log('|---|---|---:|---|---|');
  for (const { functionId, kind, bytes, heaviest, budget, onDemand } of results) {
    const verdict = budget === undefined ? '' : `${bytes <= budget ? 'within' : 'OVER'} ${kb(budget)}`;
    const loadedLater = onDemand.length === 0 ? '' : `; on demand: ${onDemand.map((file) => `${file.name} ${kb(file.bytes)}`).join(', ')}`;
    console.log(`| ${functionId} | ${kind} | ${kb(bytes)} | ${verdict} | ${heaviest.map(([name, size]) => `${name} ${kb(size)}`).join(', ')}${loadedLater} |`);
  }
}
