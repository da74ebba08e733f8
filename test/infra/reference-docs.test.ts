import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { Stage } from 'aws-cdk-lib';
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import { REFERENCE_DOCS_HANDLER } from '../../infra/reference-docs.ts';
import { OPENAPI_ASSET_FILE, REDOC_BUNDLE_ASSET_FILE, REFERENCE_DOCS_PATHS } from '../../lib/app/reference-page.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import { BUCKET_ENV_VAR, IMPORT_DLQ_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES, TABLE_IDS } from '../../lib/platform/storage/tables.ts';
import {
  environmentOf,
  logicalIdOfType,
  permissionsOfFunction,
  permissionsOfRole,
  resourceById,
  resourcesOfType,
  singleReference,
} from './template-helpers.ts';
import { stackSynthesizer } from './synth.ts';

// The stage's API reference (docs/api-guide.md#api-reference): one function on its own three
// GET routes, allowed to write its logs and nothing else, whose asset carries the document and
// the Redoc bundle of the checkout it was synthesized from. Bundles for real (every function of
// the stack: bundling is decided per stack), so the asset directory is what `cdk deploy` uploads.

const synth = stackSynthesizer();
const REPO_FILES = {
  [OPENAPI_ASSET_FILE]: new URL('../../docs/openapi.json', import.meta.url),
  [REDOC_BUNDLE_ASSET_FILE]: createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'),
};

describe('the API reference on a stage', () => {
  let stack: CustomerApiStack;
  let template: Template;
  let docsFunctionId: string;

  beforeAll(() => {
    // Prepare + Act (shared): one bundled synth.
    ({ stack, template } = synth({ stage: 'docs', 'aws:cdk:bundling-stacks': ['**'], 'aws:cdk:enable-asset-metadata': true }));
    docsFunctionId = singleReference(stack.resolve(stack.referenceDocsFunction.function.functionName));
  }, 180_000);

  /** The function a route key's integration invokes. */
  function functionOfRoute(routeKey: string): string {
    const routeId = logicalIdOfType(template, 'AWS::ApiGatewayV2::Route', (route) => route.Properties.RouteKey === routeKey);
    const integration = resourceById(template, singleReference(resourceById(template, routeId).Properties.Target));
    expect(integration.Properties).toMatchObject({ IntegrationType: 'AWS_PROXY', PayloadFormatVersion: '2.0' });
    return singleReference(integration.Properties.IntegrationUri);
  }

  it.each(REFERENCE_DOCS_PATHS)('routes GET %s to the docs function, with no authorizer', (path) => {
    // Act
    const target = functionOfRoute(`GET ${path}`);
    const route = resourcesOfType(template, 'AWS::ApiGatewayV2::Route').find(([, candidate]) => candidate.Properties.RouteKey === `GET ${path}`);

    // Assess
    expect(target).toBe(docsFunctionId);
    expect(route?.[1].Properties.AuthorizationType ?? 'NONE').toBe('NONE');
  });

  it.each(REFERENCE_DOCS_PATHS)('lets API Gateway invoke the docs function for GET %s with the invoke role', (path) => {
    // Prepare
    const routeId = logicalIdOfType(template, 'AWS::ApiGatewayV2::Route', (route) => route.Properties.RouteKey === `GET ${path}`);
    const integration = resourceById(template, singleReference(resourceById(template, routeId).Properties.Target));

    // Act
    const roleId = singleReference(integration.Properties.CredentialsArn);

    // Assess
    expect(roleId).toBe(singleReference(stack.resolve(stack.apiInvokeRole.role.roleArn)));
    expect(permissionsOfRole(template, roleId)).toContain(`lambda:InvokeFunction on ${docsFunctionId}.Arn`);
  });

  it('serves the three routes through one integration', () => {
    // Act
    const integrations = REFERENCE_DOCS_PATHS.map((path) => {
      const routeId = logicalIdOfType(template, 'AWS::ApiGatewayV2::Route', (route) => route.Properties.RouteKey === `GET ${path}`);
      return singleReference(resourceById(template, routeId).Properties.Target);
    });

    // Assess
    expect(new Set(integrations).size).toBe(1);
  });

  it('sends no other route to the docs function, and lib/<area>/routes.ts lists no /docs path', () => {
    // Act
    const routeKeys = resourcesOfType(template, 'AWS::ApiGatewayV2::Route')
      .map(([, route]) => String(route.Properties.RouteKey))
      .filter((routeKey) => routeKey !== '$default' && functionOfRoute(routeKey) === docsFunctionId);

    // Assess
    expect(routeKeys.sort()).toEqual(REFERENCE_DOCS_PATHS.map((path) => `GET ${path}`).sort());
    expect(ROUTES.filter((route) => route.path.startsWith('/docs'))).toEqual([]);
  });

  it('may write its own logs and nothing else: no table, bucket, queue or secret', () => {
    // Act
    const permissions = permissionsOfFunction(template, docsFunctionId);
    const env = environmentOf(template, docsFunctionId);

    // Assess
    expect(permissions.length).toBeGreaterThan(0);
    for (const entry of permissions) expect(entry).toMatch(/^logs:(CreateLogStream|PutLogEvents) on /);
    expect(permissions.filter((entry) => /^(dynamodb|s3|sqs|secretsmanager|kms):/.test(entry))).toEqual([]);
    const resourceVars = [...TABLE_IDS.map((id) => TABLES[id].envVar), BUCKET_ENV_VAR, IMPORT_QUEUE_ENV_VAR, IMPORT_DLQ_ENV_VAR];
    expect(Object.keys(env).filter((name) => resourceVars.includes(name))).toEqual([]);
    // Nothing beyond what the storage-free $default function gets (the cursor secret included).
    expect(env).toEqual(environmentOf(template, singleReference(stack.resolve(stack.fallbackFunction.function.functionName))));
  });

  describe('its asset', () => {
    const assetDirectory = () => {
      const assetPath = resourceById(template, docsFunctionId).Metadata?.['aws:asset:path'];
      expect(typeof assetPath).toBe('string');
      return join(Stage.of(stack)?.outdir ?? '', assetPath as string);
    };

    it('is built from the docs handler', () => {
      // Act
      const { sources } = JSON.parse(readFileSync(join(assetDirectory(), 'index.mjs.map'), 'utf8')) as { sources: string[] };

      // Assess
      expect(sources.some((source) => source.endsWith(REFERENCE_DOCS_HANDLER))).toBe(true);
    });

    it.each(Object.entries(REPO_FILES))('holds %s, equal to the checkout’s', (name, repoFile) => {
      // Act
      const copied = readFileSync(join(assetDirectory(), name));

      // Assess
      expect(copied.equals(readFileSync(repoFile))).toBe(true);
    });
  });
});
