import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '../../infra/api-function.ts';
import { CustomerApiStack, FALLBACK_HANDLER, functionIdFor } from '../../infra/customer-api-stack.ts';
import type { FunctionGrant } from '../../infra/grants.ts';
import { resolveStageConfig } from '../../infra/stages.ts';
import { ROUTES } from '../../lib/app/routes.ts';
import type { ResourceAccess, RouteDefinition } from '../../lib/platform/contracts/route-types.ts';
import { BUCKET_ENV_VAR, IMPORT_DLQ_ENV_VAR, IMPORT_QUEUE_ENV_VAR, TABLES, TABLE_IDS } from '../../lib/platform/storage/tables.ts';
import type { TableId } from '../../lib/platform/storage/tables.ts';
import { CDK_JSON_CONTEXT, describeArn, environmentOf, logGroupOfFunction, permission, permissionsOfFunction, singleReference } from './template-helpers.ts';

// How ApiFunction turns a grant (infra/grants.ts) into IAM statements and settings, for shapes the
// real map does not have (several object areas, index queries, dead letters, names without
// calls), through the real stack with injected routes and grants. Bundling is skipped: only IAM
// and environment are asserted here (grants.test.ts checks the real map, stack.test.ts bundles).

const SEED = ROUTES[0] as RouteDefinition;

function syntheticRoute(operationId: string, method: RouteDefinition['method'], path: string, access: ResourceAccess): RouteDefinition {
  return { ...SEED, operationId, method, path, handler: FALLBACK_HANDLER, access };
}

/** The chain's own tables (lib/app/routes.ts `resourcesFor`), granted their least here. */
const READ_CHAIN: FunctionGrant = { tables: { keys: { calls: ['GetItem'] }, 'rate-limits': { calls: ['UpdateItem'] } } };
const WRITE_CHAIN: FunctionGrant['tables'] = {
  ...READ_CHAIN.tables,
  idempotency: { calls: ['PutItem'] },
  audit: { calls: ['PutItem'] },
  events: { calls: [] },
};

const VARIANTS: ReadonlyArray<{ route: RouteDefinition; grant: FunctionGrant }> = [
  {
    route: syntheticRoute('writeEverything', 'POST', '/v1/test/imports', {
      tables: { inventory: 'read-write', audit: 'write', events: 'write' },
      bucket: 'write',
      importQueue: 'send',
    }),
    grant: {
      tables: { ...WRITE_CHAIN, inventory: { calls: ['GetItem', 'PutItem'], queryIndexes: ['gsi1'] } },
      objects: { 'import-files': ['PutObject', 'GetObject'], attachments: ['DeleteObject'] },
      listObjects: ['attachments'],
      importQueue: ['send'],
    },
  },
  {
    route: syntheticRoute('readAttachment', 'GET', '/v1/test/attachments/{id}', { tables: { inventory: 'read' }, bucket: 'read' }),
    grant: { tables: { ...READ_CHAIN.tables, inventory: { calls: ['BatchGetItem'] } }, objects: { attachments: ['GetObject'] } },
  },
  {
    route: syntheticRoute('drainDeadLetters', 'PUT', '/v1/test/dead-letters', { tables: {}, importDeadLetterQueue: 'consume' }),
    grant: { tables: WRITE_CHAIN, importDeadLetterQueue: ['ReceiveMessage', 'DeleteMessage'] },
  },
  {
    route: syntheticRoute('chainOnly', 'DELETE', '/v1/test/things/{id}', { tables: {} }),
    grant: { tables: WRITE_CHAIN },
  },
];

const GRANTS = Object.fromEntries(VARIANTS.map(({ route, grant }) => [route.operationId, grant]));
const variant = (operationId: string) => VARIANTS.find(({ route }) => route.operationId === operationId) as (typeof VARIANTS)[number];

describe('ApiFunction grants', () => {
  let app: App;
  let stack: CustomerApiStack;
  let template: Template;

  beforeAll(() => {
    // Prepare
    app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    const config = resolveStageConfig((key) => ({ stage: 'grants' })[key]);

    // Act
    stack = new CustomerApiStack(app, 'CustomerApi-grants', { config, routes: VARIANTS.map(({ route }) => route), grants: { routes: GRANTS } });
    template = Template.fromStack(stack);
  }, 120_000);

  afterAll(() => {
    rmSync(app.outdir, { recursive: true, force: true });
  });

  function fnLogicalId(operationId: string): string {
    const construct = stack.node.findChild(functionIdFor(operationId));
    if (!(construct instanceof ApiFunction)) throw new Error(`${operationId} has no ApiFunction`);
    return singleReference(stack.resolve(construct.function.functionName));
  }

  const table = (id: TableId) => stack.resolve(stack.tables[id].tableArn) as unknown;
  const bucket = () => stack.resolve(stack.filesBucket.bucketArn) as unknown;
  const objects = (pattern: string) => stack.resolve(stack.filesBucket.arnForObjects(pattern)) as unknown;
  const logs = (operationId: string) => permission('logs:CreateLogStream', { 'Fn::GetAtt': [logGroupOfFunction(template, fnLogicalId(operationId)), 'Arn'] });

  it('writeEverything: each table exactly its calls, Query on the named index only, objects per area prefix, a prefix-bound list, SendMessage alone', () => {
    // Act
    const permissions = permissionsOfFunction(template, fnLogicalId('writeEverything'));

    // Assess
    expect(permissions).toEqual(
      [
        logs('writeEverything'),
        permission('logs:PutLogEvents', { 'Fn::GetAtt': [logGroupOfFunction(template, fnLogicalId('writeEverything')), 'Arn'] }),
        permission('dynamodb:GetItem', table('keys')),
        permission('dynamodb:UpdateItem', table('rate-limits')),
        permission('dynamodb:PutItem', table('idempotency')),
        permission('dynamodb:PutItem', table('audit')),
        permission('dynamodb:GetItem', table('inventory')),
        permission('dynamodb:PutItem', table('inventory')),
        permission('dynamodb:Query', stack.resolve(`${stack.tables.inventory.tableArn}/index/gsi1`)),
        permission('s3:PutObject', objects('imports/*')),
        permission('s3:GetObject', objects('imports/*')),
        permission('s3:DeleteObject', objects('attachments/*')),
        permission('s3:ListBucket', bucket(), { StringLike: { 's3:prefix': ['attachments/*'] } }),
        permission('sqs:SendMessage', stack.resolve(stack.importQueue.queueArn)),
      ].sort(),
    );
  });

  it('readAttachment: a read route gets its calls and one object call on its area', () => {
    // Act
    const permissions = permissionsOfFunction(template, fnLogicalId('readAttachment'));

    // Assess
    expect(permissions.filter((entry) => !entry.startsWith('logs:'))).toEqual(
      [
        permission('dynamodb:GetItem', table('keys')),
        permission('dynamodb:UpdateItem', table('rate-limits')),
        permission('dynamodb:BatchGetItem', table('inventory')),
        permission('s3:GetObject', objects('attachments/*')),
      ].sort(),
    );
  });

  it('drainDeadLetters: exactly the listed dead-letter calls, nothing on the import queue', () => {
    // Act
    const permissions = permissionsOfFunction(template, fnLogicalId('drainDeadLetters')).filter((entry) => entry.startsWith('sqs:'));

    // Assess
    expect(permissions).toEqual(
      [
        permission('sqs:ReceiveMessage', stack.resolve(stack.importDeadLetterQueue.queueArn)),
        permission('sqs:DeleteMessage', stack.resolve(stack.importDeadLetterQueue.queueArn)),
      ].sort(),
    );
  });

  it('a table granted without calls (events here) is named in the environment and reachable by no statement', () => {
    // Act
    const permissions = permissionsOfFunction(template, fnLogicalId('chainOnly'));

    // Assess
    expect(permissions.filter((entry) => entry.endsWith(` on ${describeArn(table('events'))}`))).toEqual([]);
    expect(environmentOf(template, fnLogicalId('chainOnly'))[TABLES.events.envVar]).toEqual(stack.resolve(stack.tables.events.tableName));
  });

  it.each(VARIANTS.map(({ route }) => route.operationId))('%s: the environment names exactly the resources of its grant', (operationId) => {
    // Prepare
    const { grant } = variant(operationId);
    const tableEnvVars = new Set(TABLE_IDS.map((id) => TABLES[id].envVar));

    // Act
    const env = environmentOf(template, fnLogicalId(operationId));

    // Assess
    for (const id of TABLE_IDS) {
      expect(env[TABLES[id].envVar], id).toEqual(grant.tables[id] ? stack.resolve(stack.tables[id].tableName) : undefined);
    }
    expect(Object.keys(env).filter((key) => tableEnvVars.has(key))).toHaveLength(Object.keys(grant.tables).length);
    expect(env[BUCKET_ENV_VAR]).toEqual(grant.objects || grant.listObjects ? stack.resolve(stack.filesBucket.bucketName) : undefined);
    expect(env[IMPORT_QUEUE_ENV_VAR]).toEqual(grant.importQueue ? stack.resolve(stack.importQueue.queueUrl) : undefined);
    expect(env[IMPORT_DLQ_ENV_VAR]).toEqual(grant.importDeadLetterQueue ? stack.resolve(stack.importDeadLetterQueue.queueUrl) : undefined);
  });
});

describe('CustomerApiStack refuses grants that do not fit', () => {
  const apps: App[] = [];
  afterAll(() => {
    for (const app of apps) rmSync(app.outdir, { recursive: true, force: true });
  });

  function build(route: RouteDefinition, grants: Record<string, FunctionGrant>): void {
    const app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [] } });
    apps.push(app);
    const config = resolveStageConfig((key) => ({ stage: 'refusals' })[key]);
    new CustomerApiStack(app, 'CustomerApi-refusals', { config, routes: [route], workers: [], grants: { routes: grants } });
  }

  const route = variant('readAttachment').route;
  const grant = variant('readAttachment').grant;

  it.each([
    { name: 'a route without an entry', grants: {}, error: /readAttachment has no entry in infra\/grants\.ts/ },
    {
      name: 'a table the route does not declare',
      grants: { readAttachment: { ...grant, tables: { ...grant.tables, audit: { calls: ['Query'] } } } },
      error: /tables audit, inventory, keys, rate-limits ≠ declared inventory, keys, rate-limits/,
    },
    {
      name: 'a write call on a table declared read',
      grants: { readAttachment: { ...grant, tables: { ...grant.tables, inventory: { calls: ['PutItem'] } } } },
      error: /PutItem on inventory exceed its declared level 'read'/,
    },
    {
      name: 'an index the table does not have',
      grants: { readAttachment: { ...grant, tables: { ...grant.tables, inventory: { calls: [], queryIndexes: ['gsi9'] } } } },
      error: /inventory has no index gsi9/,
    },
    { name: 'no bucket use where the route declares one', grants: { readAttachment: { tables: grant.tables } }, error: /bucket use differs/ },
    { name: 'sending to the queue undeclared', grants: { readAttachment: { ...grant, importQueue: ['send'] } }, error: /sending to the import queue differs/ },
  ] as const)('refuses $name', ({ grants, error }) => {
    // Act + Assess
    expect(() => build(route, grants as Record<string, FunctionGrant>)).toThrow(error);
  });
});
