import { createRequire } from 'node:module';
import { join } from 'node:path';
import { HttpMethod } from 'aws-cdk-lib/aws-apigatewayv2';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { ICommandHooks } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Construct } from 'constructs';
import { OPENAPI_ASSET_FILE, REDOC_BUNDLE_ASSET_FILE, REFERENCE_DOCS_PATHS } from '../lib/app/reference-page.ts';
import type { ResourceAccess } from '../lib/platform/contracts/route-types.ts';
import { ApiFunction, REPO_ROOT } from './api-function.ts';
import type { ApiFunctionResources } from './api-function.ts';
import type { ApiInvokeRole } from './api-invoke-role.ts';
import { REFERENCE_DOCS_GRANT, assertGrantMatchesAccess } from './grants.ts';
import type { StageConfig } from './stages.ts';

/**
 * The stage's API reference (docs/api-guide.md#api-reference): one function on its own GET routes,
 * next to (not in) lib/<area>/routes.ts, whose routes the OpenAPI document describes. The routes have no
 * authorizer like every other one; the function skips the chain, so nothing checks a key.
 */

export const REFERENCE_DOCS_HANDLER = 'functions/http/docs/reference-page.ts';
export const REFERENCE_DOCS_FUNCTION_ID = 'ReferenceDocsFunction';
/** It reads two files of its own asset and touches no storage. */
export const REFERENCE_DOCS_ACCESS: ResourceAccess = { tables: {} };

/**
 * What the asset carries besides the bundle, by the name the handler reads. Copied at synth
 * rather than fetched from S3: an HTTP API cannot serve S3 objects by itself (the reasons are in
 * the doc), and the asset hash (of the output) then changes with the document, so a deploy ships it.
 */
export function referenceDocsAssetFiles(): ReadonlyArray<{ source: string; name: string }> {
  return [
    { source: join(REPO_ROOT, 'docs/openapi.json'), name: OPENAPI_ASSET_FILE },
    { source: createRequire(join(REPO_ROOT, 'package.json')).resolve('redoc/bundles/redoc.standalone.js'), name: REDOC_BUNDLE_ASSET_FILE },
  ];
}

/** NodejsFunction runs hook commands in a shell: the paths are single-quoted. */
const shellQuote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;

const COPY_INTO_ASSET: ICommandHooks = {
  beforeBundling: () => [],
  beforeInstall: () => [],
  afterBundling: (_inputDir, outputDir) => referenceDocsAssetFiles().map(({ source, name }) => `cp ${shellQuote(source)} ${shellQuote(join(outputDir, name))}`),
};

/** `/docs/openapi.json` → `DocsOpenapiJson`: stable construct ids per route. */
const pascalOf = (path: string) =>
  path
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => `${part.charAt(0).toUpperCase()}${part.slice(1)}`)
    .join('');

export function addReferenceDocs(
  scope: Construct,
  httpApi: HttpApi,
  props: { resources: ApiFunctionResources; stage: StageConfig; invoke: ApiInvokeRole },
): ApiFunction {
  assertGrantMatchesAccess('referenceDocs', REFERENCE_DOCS_GRANT, REFERENCE_DOCS_ACCESS);
  const fn = new ApiFunction(scope, REFERENCE_DOCS_FUNCTION_ID, {
    entry: REFERENCE_DOCS_HANDLER,
    grant: REFERENCE_DOCS_GRANT,
    resources: props.resources,
    stage: props.stage,
    commandHooks: COPY_INTO_ASSET,
    description: `customer-api ${props.stage.stage}: API reference (${REFERENCE_DOCS_PATHS.map((path) => `GET ${path}`).join(', ')})`,
  });
  // One integration for the three routes: API Gateway calls it with the stack's invoke role,
  // which does not depend on the route (infra/api-invoke-role.ts). Its id is the one the first
  // route's integration was deployed with.
  const integration = props.invoke.integrationFor(`ReferenceDocs${pascalOf(REFERENCE_DOCS_PATHS[0])}Integration`, fn.function);
  for (const path of REFERENCE_DOCS_PATHS) httpApi.addRoutes({ path, methods: [HttpMethod.GET], integration });
  return fn;
}
