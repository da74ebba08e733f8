import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import { lambdaEsbuildOptions } from './bundling.ts';

/**
 * Modules a function imports at run time instead of carrying them in its bundle
 * (docs/operations.md#bundles): for an entry listed here, every `.ts` module of its directory is
 * built on its own (bundled, tree-shaken, with `LAMBDA_BUNDLING`'s options) into
 * `<directory name>/<module>.mjs` beside the entry's `index.mjs`, and the entry's code imports one
 * by a URL relative to itself when it needs it (lib/labels/domain/encoder-modules.ts). Each file
 * holds what its module uses and nothing else, which esbuild's code splitting cannot give here:
 * it never splits one module, and bwip-js is one module of ~130 encoders.
 *
 * NodejsFunction builds the entry; `onDemandCommandHooks` then builds the modules into the asset
 * (infra/build-on-demand-modules.ts, an `afterBundling` command), so the asset hash covers them.
 * No aws-cdk-lib code is loaded here (types only): the bench and tests build assets with it.
 */

const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Entry (relative to the repository root) → the directory of its on-demand modules. */
export const ON_DEMAND_MODULES: Readonly<Record<string, string>> = {
  'functions/http/labels/render-barcode.ts': 'lib/labels/domain/encoders',
};

/**
 * Most minified bytes one on-demand module may weigh (1 KB = 1000 bytes): what a request loads on
 * top of the entry the first time it needs the module. The largest, GS1 DataMatrix with the GS1
 * element-string checks, measures ~226 KB; QR ~164 KB. test/infra/bundle-contents.test.ts holds
 * every module to it.
 */
export const ON_DEMAND_MODULE_BUDGET_BYTES = 235_000;

const toRepoPath = (entry: string) => relative(REPO_ROOT, resolve(REPO_ROOT, entry));

/** The directory of `entry`'s on-demand modules, relative to the repository root, if it has any. */
export function onDemandDirectoryOf(entry: string): string | undefined {
  return ON_DEMAND_MODULES[toRepoPath(entry)];
}

/** The esbuild build of `entry`'s on-demand modules, in memory (outputs under the working directory), or none. */
export function onDemandEsbuildOptions(entry: string): (BuildOptions & { metafile: true; write: false }) | undefined {
  const directory = onDemandDirectoryOf(entry);
  if (directory === undefined) return undefined;
  const modules = readdirSync(join(REPO_ROOT, directory))
    .filter((file) => file.endsWith('.ts') && !file.endsWith('.test.ts'))
    .sort();
  const { entryPoints: _entry, outfile: _outfile, ...shared } = lambdaEsbuildOptions(entry);
  return {
    ...shared,
    entryPoints: Object.fromEntries(modules.map((file) => [`${basename(directory)}/${file.slice(0, -'.ts'.length)}`, join(directory, file)])),
    outdir: '.',
    outExtension: { '.js': '.mjs' },
  };
}

export interface BuiltFile {
  /** Path inside the asset, e.g. `index.mjs`, `encoders/qrcode.mjs`. */
  name: string;
  bytes: number;
}

export interface LambdaAsset {
  /** The entry's code file and every on-demand module's code file (source maps aside). */
  entry: BuiltFile;
  onDemand: BuiltFile[];
  /** Both builds' metafiles: what went into which file. */
  metafiles: Metafile[];
}

function outputName(path: string, workingDirectory: string): string {
  return relative(workingDirectory, path);
}

/**
 * Builds `entry` as the stack deploys it (infra/bundling.ts) plus its on-demand modules and, if
 * `directory` is given, writes the asset there (code and source maps, each at its asset path).
 */
export async function buildLambdaAsset(entry: string, directory?: string): Promise<LambdaAsset> {
  const entryOptions = lambdaEsbuildOptions(entry);
  const workingDirectory = entryOptions.absWorkingDir ?? REPO_ROOT;
  const onDemandOptions = onDemandEsbuildOptions(entry);
  const results = [await build({ ...entryOptions, logLevel: 'error' }), ...(onDemandOptions ? [await build({ ...onDemandOptions, logLevel: 'error' })] : [])];
  const files = results.flatMap((result) => result.outputFiles.map((file) => ({ name: outputName(file.path, workingDirectory), contents: file.contents })));
  if (directory !== undefined) {
    for (const file of files) {
      const target = join(directory, file.name);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.contents);
    }
  }
  const code = files
    .filter((file) => file.name.endsWith('.mjs') || file.name.endsWith('.js'))
    .map((file) => ({ name: file.name, bytes: file.contents.byteLength }));
  const entryFile = code.find((file) => !file.name.includes('/'));
  if (!entryFile) throw new Error(`${entry}: esbuild produced no code file`);
  return { entry: entryFile, onDemand: code.filter((file) => file !== entryFile), metafiles: results.map((result) => result.metafile) };
}

/** Builds `entry`'s on-demand modules into `directory` (the asset NodejsFunction is bundling). */
export async function writeOnDemandModules(entry: string, directory: string): Promise<string[]> {
  const options = onDemandEsbuildOptions(entry);
  if (!options) return [];
  const result = await build({ ...options, write: true, outdir: directory });
  return Object.keys(result.metafile.outputs);
}

/** NodejsFunction runs hook commands in a shell: the arguments are single-quoted. */
const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

const BUILD_SCRIPT = join(REPO_ROOT, 'infra/build-on-demand-modules.ts');

/**
 * `hooks` with the build of `entry`'s on-demand modules added after bundling (run from the
 * repository root by the Node running the synth, through tsx like the CDK app); `hooks` as given
 * for an entry without any.
 */
export function onDemandCommandHooks(entry: string, hooks: ICommandHooks | undefined): ICommandHooks | undefined {
  if (onDemandDirectoryOf(entry) === undefined) return hooks;
  const buildCommand = (outputDir: string) => [process.execPath, '--import', 'tsx', BUILD_SCRIPT, toRepoPath(entry), outputDir].map(shellQuote).join(' ');
  return {
    beforeBundling: (inputDir, outputDir) => hooks?.beforeBundling(inputDir, outputDir) ?? [],
    beforeInstall: (inputDir, outputDir) => hooks?.beforeInstall(inputDir, outputDir) ?? [],
    afterBundling: (inputDir, outputDir) => [buildCommand(outputDir), ...(hooks?.afterBundling(inputDir, outputDir) ?? [])],
  };
}
