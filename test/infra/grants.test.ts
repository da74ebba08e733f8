import { rmSync } from 'node:fs';
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiFunction } from '../../infra/api-function.ts';
import { FALLBACK_ACCESS, FALLBACK_FUNCTION_ID, createCustomerApiStack, functionIdFor } from '../../infra/customer-api-stack.ts';
import type { CustomerApiStack } from '../../infra/customer-api-stack.ts';
import {
  FALLBACK_GRANT,
  IMPORT_FILE_PREFIX,
  OBJECT_AREA_PREFIXES,
  REFERENCE_DOCS_GRANT,
  ROUTE_GRANTS,
  WORKER_GRANTS,
  assertGrantMatchesAccess,
} from '../../infra/grants.ts';
import type { FunctionGrant, ObjectArea, TableGrant } from '../../infra/grants.ts';
import { REFERENCE_DOCS_ACCESS, REFERENCE_DOCS_FUNCTION_ID } from '../../infra/reference-docs.ts';
import { attachmentObjectKey } from '../../lib/attachments/domain/attachment.ts';
import { ImportJobSubmitter } from '../../lib/imports/domain/submit-job.ts';
import { ROUTES, resourcesFor } from '../../lib/app/routes.ts';
import type { ResourceAccess } from '../../lib/platform/contracts/route-types.ts';
import { BUCKET_ENV_VAR, IMPORT_DLQ_ENV_VAR, IMPORT_QUEUE, IMPORT_QUEUE_ENV_VAR, QUEUES, TABLES, TABLE_IDS } from '../../lib/platform/storage/tables.ts';
import type { QueueId, TableId } from '../../lib/platform/storage/tables.ts';
import { WORKERS } from '../../lib/app/workers.ts';
import { CURSOR_SECRET_ARN_ENV, CURSOR_SECRET_ENV } from '../../lib/platform/config/cursor-env.ts';
import {
  CDK_JSON_CONTEXT,
  describeArn,
  environmentOf,
  logGroupOfFunction,
  permission,
  permissionsOfFunction,
  resourceById,
  singleReference,
} from './template-helpers.ts';

// infra/grants.ts is the one map of what each function may call (docs/operations.md#grants).
// First the map itself against lib/app/routes.ts and lib/app/workers.ts, then every role of a synthesized
// stage against the map: a statement broader than its entry (another action, a wider resource,
// a missing condition) fails, and so does an entry no statement carries.

interface FunctionCase {
  name: string;
  constructId: string;
  grant: FunctionGrant;
  access: ResourceAccess;
  consumesImportQueue: boolean;
  /** The queue of QUEUES whose event source mapping targets the function, if any. */
  consumedQueue?: QueueId;
}

const CASES: FunctionCase[] = [
  ...ROUTES.map((route) => ({
    name: route.operationId,
    constructId: functionIdFor(route.operationId),
    grant: ROUTE_GRANTS[route.operationId],
    access: resourcesFor(route),
    consumesImportQueue: false,
  })),
  { name: '$default', constructId: FALLBACK_FUNCTION_ID, grant: FALLBACK_GRANT, access: FALLBACK_ACCESS, consumesImportQueue: false },
  { name: 'API reference', constructId: REFERENCE_DOCS_FUNCTION_ID, grant: REFERENCE_DOCS_GRANT, access: REFERENCE_DOCS_ACCESS, consumesImportQueue: false },
  ...WORKERS.map((worker) => ({
    name: worker.id,
    constructId: functionIdFor(worker.id),
    grant: WORKER_GRANTS[worker.id] as FunctionGrant,
    access: worker.access,
    consumesImportQueue: worker.trigger === 'queue' && worker.queue === IMPORT_QUEUE.id,
    ...(worker.trigger === 'queue' ? { consumedQueue: worker.queue } : {}),
  })),
];

const tableGrants = (grant: FunctionGrant) => Object.entries(grant.tables) as [TableId, TableGrant][];

describe('the grant map', () => {
  it('has exactly one entry per route of lib/app/routes.ts', () => {
    // Assess
    expect(Object.keys(ROUTE_GRANTS).sort()).toEqual(ROUTES.map((route) => route.operationId).sort());
  });

  it('has exactly one entry per worker of lib/app/workers.ts', () => {
    // Assess
    expect(Object.keys(WORKER_GRANTS).sort()).toEqual(WORKERS.map((worker) => worker.id).sort());
  });

  it.each(CASES)('$name: names exactly the resources its access declares, within each level', ({ name, grant, access, consumesImportQueue, consumedQueue }) => {
    // Act + Assess
    expect(() => assertGrantMatchesAccess(name, grant, access, consumesImportQueue, consumedQueue)).not.toThrow();
  });

  it.each(CASES)(
    '$name: only GetItem on the keys table; no Scan or DescribeTable anywhere, BatchWriteItem (puts with no condition) only for the delivery log and the dispatch outbox',
    ({ name, grant }) => {
      // Assess
      for (const [table, tableGrant] of tableGrants(grant)) {
        expect(tableGrant.calls, table).not.toContain('Scan');
        if (!['deliverWebhooks', 'dispatchWebhookEvents'].includes(name) || table !== 'inventory')
          expect(tableGrant.calls, table).not.toContain('BatchWriteItem');
        expect(tableGrant.calls, table).not.toContain('DescribeTable');
      }
      for (const call of grant.tables.keys?.calls ?? []) expect(call).toBe('GetItem');
      expect(grant.tables.keys?.queryIndexes).toBeUndefined();
    },
  );

  it('import files are written under the import-file prefix (the key the submitter builds)', async () => {
    // Prepare
    const keys: string[] = [];
    const submitter = new ImportJobSubmitter({
      files: { put: async (key) => void keys.push(key) },
      jobs: { createWrite: () => ({}), markDispatched: async () => undefined },
      queue: { send: async () => undefined },
    });

    // Act
    await submitter.prepare('org_1', { kind: 'items', duplicateStrategy: 'skip', file: { fileName: 'a.csv', content: Buffer.from('sku\nA\n') } });

    // Assess
    expect(keys).toHaveLength(1);
    expect(keys[0]?.startsWith(IMPORT_FILE_PREFIX)).toBe(true);
    expect(OBJECT_AREA_PREFIXES['import-files']).toBe(IMPORT_FILE_PREFIX);
  });

  it('attachment bodies are written under the attachments prefix', () => {
    // Assess
    expect(attachmentObjectKey('org_1', 'att_1').startsWith(OBJECT_AREA_PREFIXES.attachments)).toBe(true);
  });

  it('no area prefix contains another (a grant on one never reaches the other)', () => {
    // Prepare
    const prefixes = Object.values(OBJECT_AREA_PREFIXES);

    // Assess
    for (const prefix of prefixes) {
      expect(prefix).toMatch(/^[a-z-]+\/$/);
      expect(prefixes.filter((other) => other !== prefix && other.startsWith(prefix))).toEqual([]);
    }
  });
});

describe('synthesized roles (stage "grants")', () => {
  let app: App;
  let stack: CustomerApiStack;
  let template: Template;

  beforeAll(() => {
    // Prepare + Act: one synth, no bundles (only IAM and settings are read).
    app = new App({ context: { ...CDK_JSON_CONTEXT, 'aws:cdk:bundling-stacks': [], stage: 'grants' } });
    stack = createCustomerApiStack(app);
    template = Template.fromStack(stack);
  }, 120_000);

  afterAll(() => {
    rmSync(app.outdir, { recursive: true, force: true });
  });

  function cursorSecret(): Secret {
    const secret = stack.node.tryFindChild('CursorSecret');
    if (!(secret instanceof Secret)) throw new Error('The stack has no CursorSecret');
    return secret;
  }

  function fnLogicalId(constructId: string): string {
    const construct = stack.node.findChild(constructId);
    if (!(construct instanceof ApiFunction)) throw new Error(`${constructId} is not an ApiFunction`);
    return singleReference(stack.resolve(construct.function.functionName));
  }

  /** What the entry allows, spelled as `permissionsOfFunction` spells the template. */
  function expectedPermissions(constructId: string, grant: FunctionGrant): string[] {
    const logGroup = { 'Fn::GetAtt': [logGroupOfFunction(template, fnLogicalId(constructId)), 'Arn'] };
    const expected = [permission('logs:CreateLogStream', logGroup), permission('logs:PutLogEvents', logGroup)];
    for (const [id, tableGrant] of tableGrants(grant)) {
      const arn = stack.tables[id].tableArn;
      for (const call of tableGrant.calls) expected.push(permission(`dynamodb:${call}`, stack.resolve(arn)));
      for (const index of tableGrant.queryIndexes ?? []) expected.push(permission('dynamodb:Query', stack.resolve(`${arn}/index/${index}`)));
    }
    for (const [area, calls] of Object.entries(grant.objects ?? {}) as [ObjectArea, string[]][]) {
      for (const call of calls) expected.push(permission(`s3:${call}`, stack.resolve(stack.filesBucket.arnForObjects(`${OBJECT_AREA_PREFIXES[area]}*`))));
    }
    for (const area of grant.listObjects ?? []) {
      expected.push(
        permission('s3:ListBucket', stack.resolve(stack.filesBucket.bucketArn), { StringLike: { 's3:prefix': [`${OBJECT_AREA_PREFIXES[area]}*`] } }),
      );
    }
    const queue = stack.resolve(stack.importQueue.queueArn);
    if (grant.importQueue?.includes('send')) expected.push(permission('sqs:SendMessage', queue));
    if (grant.importQueue?.includes('consume')) {
      for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) expected.push(permission(action, queue));
    }
    for (const call of grant.importDeadLetterQueue ?? []) expected.push(permission(`sqs:${call}`, stack.resolve(stack.importDeadLetterQueue.queueArn)));
    for (const [id, uses] of Object.entries(grant.queues ?? {}) as [QueueId, string[]][]) {
      const arn = stack.resolve(stack.workerQueues[id].queue.queueArn);
      if (uses.includes('send')) expected.push(permission('sqs:SendMessage', arn));
      if (uses.includes('consume'))
        for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes']) expected.push(permission(action, arn));
    }
    for (const [id, deadLetterCalls] of Object.entries(grant.deadLetterQueues ?? {}) as [QueueId, string[]][]) {
      for (const call of deadLetterCalls) expected.push(permission(`sqs:${call}`, stack.resolve(stack.workerQueues[id].deadLetterQueue.queueArn)));
    }
    if (grant.cursorSecret) expected.push(permission('secretsmanager:GetSecretValue', stack.resolve(cursorSecret().secretArn)));
    for (const call of grant.webhookSecrets ?? []) expected.push(permission(`kms:${call}`, stack.resolve(stack.webhookSecretsKey.keyArn)));
    const streamWorker = WORKERS.find((worker) => worker.trigger === 'stream' && functionIdFor(worker.id) === constructId);
    if (streamWorker?.trigger === 'stream') {
      const table = stack.tables[streamWorker.table];
      const streamArn = stack.resolve(table.tableStreamArn);
      for (const action of ['dynamodb:DescribeStream', 'dynamodb:GetRecords', 'dynamodb:GetShardIterator']) expected.push(permission(action, streamArn));
      expected.push(permission('dynamodb:ListStreams', stack.resolve(`${table.tableArn}/stream/*`)));
      const onFailure = stack.resolve(stack.workerQueues[streamWorker.onFailureQueue].deadLetterQueue.queueArn);
      for (const action of ['sqs:SendMessage', 'sqs:GetQueueAttributes', 'sqs:GetQueueUrl']) expected.push(permission(action, onFailure));
    }
    return expected.sort();
  }

  it.each(CASES)('$name: its role allows exactly its grant, nothing broader', ({ constructId, grant }) => {
    // Act
    const permissions = permissionsOfFunction(template, fnLogicalId(constructId));

    // Assess
    expect(permissions).toEqual(expectedPermissions(constructId, grant));
  });

  it.each(CASES)('$name: no wildcard action, no "*" resource, no whole-bucket object ARN, no Scan', ({ constructId }) => {
    // Act
    const permissions = permissionsOfFunction(template, fnLogicalId(constructId));

    // Assess
    for (const entry of permissions) {
      const [action = '', resource = ''] = entry.split(' on ');
      expect(action, entry).not.toContain('*');
      expect(resource, entry).not.toMatch(/^\*|\.Arn\/\*$/);
      expect(action, entry).not.toMatch(/Scan$/);
    }
  });

  it.each(CASES)('$name: its role has no managed policy, and its grant as its one inline policy', ({ constructId }) => {
    // Act
    const role = resourceById(template, singleReference(resourceById(template, fnLogicalId(constructId)).Properties.Role));

    // Assess: the statements themselves are checked above (statementsOfFunction reads them)
    expect(role.Properties.ManagedPolicyArns).toBeUndefined();
    expect((role.Properties.Policies as Array<{ PolicyName: string }>).map((policy) => policy.PolicyName)).toEqual(['access']);
  });

  it.each(CASES)('$name: the environment names exactly the resources of its grant', ({ constructId, grant }) => {
    // Prepare
    const tableEnvVars = new Set(TABLE_IDS.map((id) => TABLES[id].envVar));

    // Act
    const env = environmentOf(template, fnLogicalId(constructId));

    // Assess
    expect(
      Object.keys(env)
        .filter((key) => tableEnvVars.has(key))
        .sort(),
    ).toEqual(
      tableGrants(grant)
        .map(([id]) => TABLES[id].envVar)
        .sort(),
    );
    for (const [id] of tableGrants(grant)) expect(env[TABLES[id].envVar]).toEqual(stack.resolve(stack.tables[id].tableName));
    expect(env[BUCKET_ENV_VAR]).toEqual(grant.objects || grant.listObjects ? stack.resolve(stack.filesBucket.bucketName) : undefined);
    expect(env[IMPORT_QUEUE_ENV_VAR]).toEqual(grant.importQueue?.includes('send') ? stack.resolve(stack.importQueue.queueUrl) : undefined);
    expect(env[IMPORT_DLQ_ENV_VAR]).toEqual(grant.importDeadLetterQueue ? stack.resolve(stack.importDeadLetterQueue.queueUrl) : undefined);
    for (const id of (Object.keys(QUEUES) as QueueId[]).filter((queueId) => queueId !== IMPORT_QUEUE.id)) {
      expect(env[QUEUES[id].envVar], id).toEqual(grant.queues?.[id]?.includes('send') ? stack.resolve(stack.workerQueues[id].queue.queueUrl) : undefined);
      expect(env[QUEUES[id].deadLetterEnvVar], id).toEqual(
        grant.deadLetterQueues?.[id] ? stack.resolve(stack.workerQueues[id].deadLetterQueue.queueUrl) : undefined,
      );
    }
    expect(env[CURSOR_SECRET_ARN_ENV]).toEqual(grant.cursorSecret ? stack.resolve(cursorSecret().secretArn) : undefined);
  });

  it.each(CASES)('$name: no secret value in its configuration (the cursor key is read at run time, never resolved into the environment)', ({ constructId }) => {
    // Act
    const env = JSON.stringify(environmentOf(template, fnLogicalId(constructId)));

    // Assess
    expect(env).not.toContain('resolve:secretsmanager');
    expect(env).not.toContain(`"${CURSOR_SECRET_ENV}"`);
  });

  it('only the import worker may consume the import queue, and only the import-job sweeper may touch the dead letters', () => {
    // Prepare
    const queue = describeArn(stack.resolve(stack.importQueue.queueArn));
    const deadLetters = describeArn(stack.resolve(stack.importDeadLetterQueue.queueArn));

    // Act
    const receivers = CASES.filter(({ constructId }) =>
      permissionsOfFunction(template, fnLogicalId(constructId)).includes(`sqs:ReceiveMessage on ${queue}`),
    ).map(({ name }) => name);
    const deadLetterReaders = CASES.filter(({ constructId }) =>
      permissionsOfFunction(template, fnLogicalId(constructId)).some((entry) => entry.endsWith(` on ${deadLetters}`)),
    ).map(({ name }) => name);

    // Assess
    expect(receivers).toEqual(['processImportJobs']);
    expect(deadLetterReaders).toEqual(['sweepImportJobs']);
  });
});
