import type { BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';
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

/**
 * Packages replaced by a module of ours in every Lambda bundle, as paths relative to the
 * repository root: NodejsFunction runs esbuild there (`projectRoot`), and esbuild resolves an
 * alias's replacement from its working directory, not from the importing file.
 *
 * `@aws-sdk/credential-provider-node` is the clients' default credential chain; on Lambda the
 * credentials are always in the environment, so the bundle carries the environment provider alone
 * (lib/store/lambda-credential-provider.ts; why that is safe: docs/operations.md#bundles).
 */
export const LAMBDA_ALIASES = {
  '@aws-sdk/credential-provider-node': './lib/store/lambda-credential-provider.ts',
} as const;

/**
 * Most minified code a read (GET) function may carry, in bytes (1 KB = 1000 bytes): cold start
 * grows with the bundle. test/infra/bundle-contents.test.ts enforces it, bench/bundle-sizes.ts
 * shows it.
 */
export const READ_FUNCTION_BUDGET_BYTES = 400_000;

/**
 * GET routes (by operationId) not held to the budget. GET /v1/barcodes: bwip-js, the encoder the
 * route exists for, is ~384 KB minified even with only our ten symbologies imported, and the
 * route needs the DynamoDB client and zod (~300 KB) for auth and rate limits like every other.
 */
export const READ_FUNCTION_BUDGET_EXEMPT: ReadonlySet<string> = new Set([
  'renderBarcode',
  // GET /v1/attachments/{id}/download-url: it exists to presign, and the S3 client with the
  // presigner adds ~170 KB to the ~345 KB every read function carries.
  'getAttachmentDownloadUrl',
]);

/** Where NodejsFunction runs esbuild: the repository root, which `LAMBDA_ALIASES` are relative to. */
const BUNDLING_WORKING_DIR = fileURLToPath(new URL('..', import.meta.url));

export const LAMBDA_BUNDLING = {
  format: 'esm',
  target: `node${LAMBDA_NODE_MAJOR}`,
  minify: true,
  sourceMap: true,
  // Stack traces only need the mappings; leaving the sources out keeps the asset small.
  sourcesContent: false,
  mainFields: ['module', 'main'],
  banner: ESM_REQUIRE_BANNER,
  // NodejsFunction has no alias option; its `esbuildArgs` become `--alias:<package>=<path>`.
  esbuildArgs: Object.fromEntries(Object.entries(LAMBDA_ALIASES).map(([name, path]) => [`--alias:${name}`, path])),
} as const;

/**
 * The esbuild build of one entry exactly as NodejsFunction runs it with `LAMBDA_BUNDLING`
 * (`--bundle --platform=node`, no externals since the AWS SDK is bundled, the aliases of
 * `esbuildArgs`, run from the repository root), in memory and with a metafile so callers can see
 * what went in.
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
    alias: { ...LAMBDA_ALIASES },
    absWorkingDir: BUNDLING_WORKING_DIR,
    outfile: LAMBDA_BUNDLING.format === 'esm' ? 'index.mjs' : 'index.js',
    logLevel: 'warning',
    metafile: true,
    write: false,
  };
}
