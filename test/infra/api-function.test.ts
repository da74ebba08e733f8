import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '../../infra/api-function.ts';
import { CustomerApiStack, FALLBACK_HANDLER, functionIdFor } from '../../infra/customer-api-stack.ts';
import { resolveStageConfig } from '../../infra/stages.ts';
import { ROUTES, resourcesFor } from '../../lib/routes.ts';
import type { ResourceAccess, RouteDefinition } from '../../lib/routes.ts';
import { BUCKET_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES, TABLE_IDS } from '../../lib/store/tables.ts';
import type { TableId } from '../../lib/store/tables.ts';
import {
  ALLOWED_TABLE_ACTIONS,
  CDK_JSON_CONTEXT,
  asArray,
  environmentOf,
  logGroupOfFunction,
  logicalIdOfType,
  referencedLogicalIds,
  resourcesOfType,
  singleReference,
  statementsOfFunction,
} from './template-helpers.ts';
import type { PolicyStatement } from './template-helpers.ts';

// ApiFunction's grants for access shapes the route table does not use yet (bucket, queue, write
// levels), through the real stack with injected routes. Bundling is skipped: only IAM and
// environment are asserted here (stack.test.ts covers the bundles).

const SEED = ROUTES[0] as RouteDefinition;

function syntheticRoute(operationId: string, method: RouteDefinition['method'], path: string, access: ResourceAccess): RouteDefinition {
  return { ...SEED, operationId, method, path, handler: FALLBACK_HANDLER, access };
}

const VARIANTS: readonly RouteDefinition[] = [
  syntheticRoute('writeEverything', 'POST', '/v1/test/imports', {
    tables: { inventory: 'read-write', audit: 'write', events: 'write' },
    bucket: 'write',
    importQueue: 'send',
  }),
  syntheticRoute('readAttachment', 'GET', '/v1/test/attachments/{id}', { tables: { inventory: 'read' }, bucket: 'read' }),
  syntheticRoute('replaceFile', 'PUT', '/v1/test/files/{id}', { tables: {}, bucket: 'read-write' }),
  syntheticRoute('chainOnly', 'DELETE', '/v1/test/things/{id}', { tables: {} }),
];

const S3_READ = /^s3:(GetObject\*|GetBucket\*|List\*)$/;
const S3_WRITE = /^s3:(PutObject|PutObjectLegalHold|PutObjectRetention|PutObjectTagging|PutObjectVersionTagging|Abort\*|DeleteObject\*)$/;
const SQS_SEND = new Set(['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl']);

describe('ApiFunction grants', () => {
  let app: App;
  let stack: CustomerApiStack;
  let template: Template;

  beforeAll(() => {
    // Prepare
    app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const config = resolveStageConfig((key) => ({ stage: 'grants' })[key]);

    // Act
    stack = new CustomerApiStack(app, 'CustomerApi-grants', { config, routes: VARIANTS });
    template = Template.fromStack(stack);
  }, 120_000);

  afterAll(() => {
    rmSync(app.outdir, { recursive: true, force: true });
  });

  function fnLogicalId(route: RouteDefinition): string {
    const construct = stack.node.findChild(functionIdFor(route.operationId));
    if (!(construct instanceof ApiFunction)) throw new Error(`${route.operationId} has no ApiFunction`);
    return singleReference(stack.resolve(construct.function.functionName));
  }

  function tableLogicalId(id: TableId): string {
    return singleReference(stack.resolve(stack.tables[id].tableName));
  }

  function statementsOn(route: RouteDefinition, logicalId: string): PolicyStatement[] {
    return statementsOfFunction(template, fnLogicalId(route)).filter((statement) =>
      referencedLogicalIds(statement.Resource).has(logicalId),
    );
  }

  function actionsOn(route: RouteDefinition, logicalId: string): string[] {
    return statementsOn(route, logicalId).flatMap((statement) => asArray(statement.Action));
  }

  const bucketId = (): string => logicalIdOfType(template, 'AWS::S3::Bucket', () => true);
  const queueId = (): string => singleReference(stack.resolve(stack.importQueue.queueUrl));

  it.each(VARIANTS)('$operationId: the role reaches exactly its storage and its own log group', (route) => {
    // Prepare
    const access = resourcesFor(route);
    const expected = [
      ...TABLE_IDS.filter((id) => access.tables[id]).map(tableLogicalId),
      ...(access.bucket ? [bucketId()] : []),
      ...(access.importQueue ? [queueId()] : []),
      logGroupOfFunction(template, fnLogicalId(route)),
    ];

    // Act
    const statements = statementsOfFunction(template, fnLogicalId(route));

    // Assess
    const referenced = new Set(statements.flatMap((statement) => [...referencedLogicalIds(statement.Resource)]));
    expect([...referenced].sort()).toEqual(expected.sort());
  });

  it.each(VARIANTS)('$operationId: each table gets exactly the actions of its level', (route) => {
    // Prepare
    const access = resourcesFor(route);

    for (const id of TABLE_IDS) {
      const level = access.tables[id];
      if (!level) continue;

      // Act
      const actions = new Set(actionsOn(route, tableLogicalId(id)));

      // Assess
      expect([...actions].sort(), `${route.operationId} on ${id}`).toEqual([...ALLOWED_TABLE_ACTIONS[level]].sort());
    }
  });

  it.each(VARIANTS)('$operationId: bucket actions match its bucket level', (route) => {
    // Act
    const actions = actionsOn(route, bucketId());

    // Assess
    const reads = actions.filter((action) => S3_READ.test(action));
    const writes = actions.filter((action) => S3_WRITE.test(action));
    expect(reads.length + writes.length, actions.join(', ')).toBe(actions.length);
    expect(reads.length > 0).toBe(route.access.bucket === 'read' || route.access.bucket === 'read-write');
    expect(writes.length > 0).toBe(route.access.bucket === 'write' || route.access.bucket === 'read-write');
    if (writes.length > 0) expect(writes).toEqual(expect.arrayContaining(['s3:PutObject', 's3:DeleteObject*']));
  });

  it.each(VARIANTS)('$operationId: may only send to the import queue, and only when asked', (route) => {
    // Act
    const actions = actionsOn(route, queueId());

    // Assess
    expect(new Set(actions)).toEqual(route.access.importQueue === 'send' ? SQS_SEND : new Set());
  });

  it.each(VARIANTS)('$operationId: environment names exactly the storage it was granted', (route) => {
    // Prepare
    const access = resourcesFor(route);
    const tableEnvVars = new Set(TABLE_IDS.map((id) => TABLES[id].envVar));

    // Act
    const env = environmentOf(template, fnLogicalId(route));

    // Assess
    for (const id of TABLE_IDS) {
      expect(env[TABLES[id].envVar], id).toEqual(access.tables[id] ? stack.resolve(stack.tables[id].tableName) : undefined);
    }
    expect(Object.keys(env).filter((key) => tableEnvVars.has(key))).toHaveLength(
      TABLE_IDS.filter((id) => access.tables[id]).length,
    );
    expect(env[BUCKET_ENV_VAR]).toEqual(access.bucket ? stack.resolve(stack.filesBucket.bucketName) : undefined);
    expect(env[IMPORT_QUEUE_ENV_VAR]).toEqual(access.importQueue ? stack.resolve(stack.importQueue.queueUrl) : undefined);
  });

  it.each(VARIANTS)('$method $path gets its own route key', (route) => {
    // Act
    const routeKeys = resourcesOfType(template, 'AWS::ApiGatewayV2::Route').map(([, resource]) => resource.Properties.RouteKey);

    // Assess
    expect(routeKeys).toContain(`${route.method} ${route.path}`);
  });
});
