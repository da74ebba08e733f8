import type { BuildOptions } from 'esbuild';
import { fileURLToPath } from 'node:url';
import { LAMBDA_NODE_MAJOR } from '../lib/platform/config/runtime.ts';

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
export const ESM_REQUIRE_BANNER = "import { createRequire as __houseCreateRequire } from 'node:module'; const require = __houseCreateRequire(import.meta.url);";

/**
 * Packages replaced by a module of ours in every Lambda bundle, as paths relative to the
 * repository root: NodejsFunction runs esbuild there (`projectRoot`), and esbuild resolves an
 * alias's replacement from its working directory, not from the importing file.
 *
 * `@aws-sdk/credential-provider-node` is the clients' default credential chain; on Lambda the
 * credentials are always in the environment, so the bundle carries the environment provider alone
 * (lib/platform/aws/lambda-credential-provider.ts; why that is safe: docs/operations.md#bundles).
 *
 * `@smithy/core/event-streams` (~15 KB) serves only operations with an event stream (S3
 * SelectObjectContent and the like), which no function calls: a stub that throws if one ever
 * does. `@aws-sdk/endpoint-cache` is DynamoDB's endpoint-discovery cache on mnemonist's LRU
 * (~8 KB); the same cache on a `Map` replaces it. `debug` (~7 KB, in the upload only: the content
 * sniffer's zip reader traces with it) prints nothing unless `DEBUG` names a namespace, which no
 * function sets: a logger that is always disabled replaces it. infra/lambda-aliases/ has all three,
 * test/infra/lambda-aliases.test.ts and test/integration/lambda-bundle.test.ts (DynamoDB and S3
 * calls from bundles) hold them to the real thing.
 */
export const LAMBDA_ALIASES = {
  '@aws-sdk/credential-provider-node': './lib/platform/aws/lambda-credential-provider.ts',
  '@smithy/core/event-streams': './infra/lambda-aliases/smithy-event-streams.ts',
  '@aws-sdk/endpoint-cache': './infra/lambda-aliases/endpoint-cache.ts',
  debug: './infra/lambda-aliases/debug.ts',
} as const;

/**
 * Most minified code a function may carry, in bytes (1 KB = 1000 bytes), by class: cold start
 * grows with the bundle. test/infra/bundle-contents.test.ts enforces them, bench/bundle-sizes.ts
 * shows them; docs/performance.md "Bundles" has the figures. An HTTP function's budget is 300 KB,
 * which every read meets (271–292 KB; the lists read their cursor secret with one signed request,
 * lib/platform/aws/cursor-secret.ts), and so do the attachment download URL, delete and link (276–296 KB:
 * S3 through signed requests, lib/attachments/store/attachment-objects.ts) and the BOM create (299 KB).
 */
export const HTTP_FUNCTION_BUDGET_BYTES = 300_000;

/** The same for a worker (queue or schedule). */
export const WORKER_BUDGET_BYTES = 450_000;

/**
 * Functions over their class's budget (by operationId or worker id), each held to its own measured
 * ceiling instead, so that it cannot grow unnoticed either.
 */
export const BUNDLE_CEILINGS: Readonly<Record<string, { bytes: number; why: string }>> = {
  uploadAttachment: {
    bytes: 400_500,
    why: 'the content sniffer (file-type with its tokenizers and zip reader, ~66 KB) and the multipart parser (~25 KB) the route exists for, on top of the write path (docs/performance.md "Bundles"); +0.2 KB since the stock writes’ scope and audit kinds joined the shared declarations (400.2 KB)',
  },
  listWebhookDeliveries: {
    bytes: 301_000,
    why: 'a read of the deliveries store, which also keeps the due-task index and the attempt gate’s needs (docs/webhooks.md), with the shared declarations the stock writes grew (scope, audit kinds): 300.2 KB measured; +0.3 KB since claims and settles are single-item writes that know their own retried writes (300.5 KB)',
  },
  submitImportJob: {
    bytes: 330_000,
    why: 'the multipart parser (@fastify/busboy, ~25 KB: Node’s own FormData parser refuses `filename*` and a preamble, which busboy accepts) on top of the write path; +1.3 KB since the form has the dryRun field (328.8 KB measured), +0.1 KB since the stock writes’ scope and audit kinds joined the shared declarations (329.5 KB)',
  },
  createBom: {
    bytes: 306_000,
    why: 'the write path and the BOM body’s schemas: 299 KB alone, +1.3 KB since the audit kinds, ids and entities of webhooks and exports joined the shared declarations, +0.7 KB since a transaction’s events are stored as one batch item (lib/platform/dynamo/event-batches.ts), +0.1 KB since the build audit kinds joined them (303.1 KB measured), +2.4 KB since BOMs hold 500 lines: the larger body limit and the idempotency store that keeps a response too large for one item in parts (lib/platform/dynamo/idempotency-response-parts.ts; 305.6 KB measured)',
  },
  submitBuild: {
    bytes: 339_500,
    why: 'the write path, the BOM store (with the provenance store it hands builds lists to), and the JSON stock changes’ batch reads of items, locations and claims a build names (337.3 KB measured); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (339.1 KB measured)',
  },
  listBoms: {
    bytes: 301_000,
    why: 'the BOM store, which now hands build lists to the provenance store of builds of any size (300.3 KB measured)',
  },
  traceLot: {
    bytes: 305_000,
    why: 'the lot-trace reads with the provenance store that reads a large build’s consumed slices (304.0 KB measured)',
  },
  adjustStock: {
    bytes: 345_000,
    why: 'the write path and the stock domain an import row is decided by (StockState, StockLedger, the adjustment flow and the low-stock rule), with the stores of records, totals, movements and claims; +3.7 KB since the four stock-change kinds share one command layer and one contracts module (336.7 KB measured), +4.4 KB since the ledger keeps reserved and available (341.1 KB); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (344.4 KB)',
  },
  transferStock: {
    bytes: 345_000,
    why: 'as adjustStock: the write path, the stock domain, the shared stock-change command and contracts (341.5 KB measured); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (344.8 KB)',
  },
  countStock: {
    bytes: 346_000,
    why: 'as adjustStock, with the count documents and count.completed (342.2 KB measured); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (345.5 KB)',
  },
  receiveStock: {
    bytes: 346_000,
    why: 'as adjustStock, with the receipt documents, po.received and the receivedAt rule (341.9 KB measured); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (345.2 KB)',
  },

  createReservation: {
    bytes: 355_000,
    why: 'as adjustStock: the write path, the stock domain (StockState, StockLedger with holds), the two-batch stock reads and the reservation store (341.4 KB measured); +9.8 KB since operations of many lots run in slices, releases and fulfilments included (351.2 KB); +0.8 KB since the stock state can read records with their totals in one batch (352.0 KB); +0.6 KB since a line reads its place’s stocked lots and remembered keys carry their time (352.6 KB); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (354.7 KB)',
  },
  releaseReservation: {
    bytes: 351_500,
    why: 'as createReservation, with the settle command (340.5 KB measured); +8.4 KB since operations of many lots run in slices (348.9 KB); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (351.3 KB)',
  },
  fulfilReservation: {
    bytes: 351_500,
    why: 'as createReservation, with the settle command (340.5 KB measured); +8.4 KB since operations of many lots run in slices (348.9 KB); +0.5 KB since stock in refuses archived items and locations (the catalog’s archived rule and its 409) (351.3 KB)',
  },
  updateBom: {
    bytes: 310_000,
    why: 'the write path (transactions, idempotency, events in batch items: ~14 KB over a read), the BOM body’s schemas (zod +7 KB) and the revision comparison; +0.1 KB since movements may be shipments (307.0 KB measured), +2.4 KB since BOMs hold 500 lines, as createBom (309.6 KB)',
  },
  submitExport: {
    bytes: 311_500,
    why: 'the write path and the export kinds’ filter rules (the job is queued with one signed SendMessage, lib/platform/aws/signed-sqs.ts); +0.3 KB since the stock-records kind has the reserved and available columns; +1.5 KB since the reservations kind (its columns, filters and the statuses its status filter takes) (311.1 KB measured)',
  },
  processExportJobs: {
    bytes: 543_000,
    why: 'it writes export files with the S3 client’s multipart calls (~135 KB with the SDK parts only S3 uses) and the CSV writer; +1 KB since stock reads go through the place’s stocked lots (its inventory store carries their upkeep) (541.0 KB measured); +0.05 KB since item and location lists can leave archived records out (542.05 KB)',
  },
  // The catalog writes (docs/inventory.md "Writing the catalog"): the write path over the inventory store's creates, updates and renames.
  createItem: {
    bytes: 326_000,
    why: 'the write path, the catalog decisions the import kinds share and the inventory store (records, list entries, renames, the item-total rewrite; 325.0 KB measured)',
  },
  updateItem: {
    bytes: 326_000,
    why: 'as createItem (325.0 KB measured)',
  },
  createLocation: {
    bytes: 326_000,
    why: 'as createItem, with the parent and cycle rules (325.0 KB measured)',
  },
  updateLocation: {
    bytes: 326_000,
    why: 'as createLocation (325.0 KB measured)',
  },
  // The webhook writes: the write path, the endpoint commands (URL vetting, Standard Webhooks
  // secrets) and the secret box (AES-GCM, KMS through one signed request).
  createWebhookEndpoint: {
    bytes: 325_500,
    why: 'the write path, the webhook commands and the secret box that seals the new secret and the response kept for a replay, +2.8 KB since the replay store (which the webhook commands build) holds the endpoint’s active-replay item and files running replays in the due index, +0.1 KB since the build audit kinds joined the shared declarations (325.1 KB measured)',
  },
  replaceWebhookEndpoint: {
    bytes: 325_100,
    why: 'the write path and the webhook commands (URL vetting, the version condition), +2.8 KB since the replay store (which the webhook commands build) holds the endpoint’s active-replay item and files running replays in the due index, +0.02 KB since the due index’s attributes are a list the batched task settle removes one by one (325.02 KB)',
  },
  deleteWebhookEndpoint: {
    bytes: 320_000,
    why: 'the write path and the webhook commands, +2.8 KB since the replay store (which the webhook commands build) holds the endpoint’s active-replay item and files running replays in the due index',
  },
  rotateWebhookSecret: {
    bytes: 320_300,
    why: 'the write path, the webhook commands and the secret box that seals the new secret and the response kept for a replay, +2.8 KB since the replay store (which the webhook commands build) holds the endpoint’s active-replay item and files running replays in the due index, +0.03 KB since a JSON route may set its own body limit and an idempotency completion may be several items (BOMs of 500 lines; 320.01 KB), +0.2 KB with the batched delivery writes (the due index’s attributes now a list; 320.22 KB measured)',
  },
  replayWebhookEvents: {
    bytes: 328_000,
    why: 'the write path, the webhook commands and the replay page reader (its first page is queued with one signed SendMessageBatch), +2.8 KB since the replay store (which the webhook commands build) holds the endpoint’s active-replay item and files running replays in the due index',
  },
};

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
