import type { BuildOptions } from 'esbuild';
import { LAMBDA_NODE_MAJOR } from '../lib/config/runtime.ts';

/**
 * How every Lambda of the service is bundled, in one place: `ApiFunction` hands these options to
 * NodejsFunction, and `bench/bundle-sizes.ts` and the bundle tests of test/infra build with
 * `lambdaEsbuildOptions`, which is the esbuild command line NodejsFunction derives from them. No
 * aws-cdk-lib import here, so measuring a bundle does not load the CDK.
 */

/**
 * esbuild emits ESM, but some bundled dependencies are CommonJS and call `require` (for Node
 * built-ins) at run time; ESM has no `require`, so the banner defines one for the bundle.
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __houseCreateRequire } from 'node:module'; const require = __houseCreateRequire(import.meta.url);";

export const LAMBDA_BUNDLING = {
  format: 'esm',
  target: `node${LAMBDA_NODE_MAJOR}`,
  minify: true,
  sourceMap: true,
  // Stack traces only need the mappings; leaving the sources out keeps the asset small.
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
} as const;

/**
 * The esbuild build of one entry exactly as NodejsFunction runs it with `LAMBDA_BUNDLING`
 * (`--bundle --platform=node`, no externals since the AWS SDK is bundled), in memory and with a
 * metafile so callers can see what went in.
 */
export function lambdaEsbuildOptions(entry: string): BuildOptions & { metafile: true; write: false } {
  return {
    entryPoints: [entry],
    bundle: true,
    platform: 'node',
    format: LAMBDA_BUNDLING.format,
    target: LAMBDA_BUNDLING.target,
    minify: LAMBDA_BUNDLING.minify,
    sourcemap: LAMBDA_BUNDLING.sourceMap,
    sourcesContent: LAMBDA_BUNDLING.sourcesContent,
    mainFields: [...LAMBDA_BUNDLING.mainFields],
    banner: { js: LAMBDA_BUNDLING.banner },
    outfile: LAMBDA_BUNDLING.format === 'esm' ? 'index.mjs' : 'index.js',
    logLevel: 'warning',
    metafile: true,
    write: false,
  };
}
