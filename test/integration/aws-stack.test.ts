import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import {
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { DeleteMessageCommand, GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IMPORT_QUEUE, TABLES, physicalTableName } from '../../lib/platform/storage/tables.ts';
import { awsStackInternals, startAwsStack, type AwsStack } from '../../local/aws-stack/index.ts';

/**
 * The embedded local AWS stack on its own (not the run-wide one of test/support): started in
 * memory on a temporary state directory, then persistently to check data survives a restart.
 */

const PREFIX = 'customer-api-local';
const run = promisify(execFile);

function clients(stack: AwsStack) {
  const common = {
    region: stack.env.AWS_REGION,
    credentials: { accessKeyId: stack.env.AWS_ACCESS_KEY_ID!, secretAccessKey: stack.env.AWS_SECRET_ACCESS_KEY! },
  };
  return {
    dynamo: new DynamoDBClient({ ...common, endpoint: stack.endpoints.dynamodb }),
    s3: new S3Client({ ...common, endpoint: stack.endpoints.s3, forcePathStyle: true }),
    sqs: new SQSClient({ ...common, endpoint: stack.endpoints.sqs }),
  };
}

function portOf(endpoint: string): number {
  return Number(new URL(endpoint).port);
}

async function portIsClosed(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(false);
    });
    socket.once('error', () => resolve(true));
  });
}

function processExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // An orphan killed by the watchdog stays a zombie until init reaps it: that counts as gone.
  const stat = `/proc/${pid}/stat`;
  return !existsSync(stat) || !/^\d+ \(.*\) Z/.test(readFileSync(stat, 'utf8'));
}

/** Local addresses of listening TCP sockets on a port, from /proc/net/tcp (Linux only). */
function listenAddresses(port: number): string[] | undefined {
  if (!existsSync('/proc/net/tcp')) return undefined;
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  return readFileSync('/proc/net/tcp', 'utf8')
    .split('\n')
    .slice(1)
    .map((line) => line.trim().split(/\s+/))
    .filter((cols) => cols[3] === '0A' && cols[1]?.endsWith(`:${hex}`))
    .map((cols) => {
      const ip = cols[1]!.split(':')[0]!;
      return [3, 2, 1, 0].map((i) => parseInt(ip.slice(i * 2, i * 2 + 2), 16)).join('.');
    });
}

describe('local AWS stack, in memory', () => {
  let stateDir: string;
  let stack: AwsStack;
  let aws: ReturnType<typeof clients>;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'aws-stack-test-'));
    stack = await startAwsStack({ stateDir, inMemory: true });
    aws = clients(stack);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it('serves every endpoint on 127.0.0.1 and exports the environment a process needs', () => {
    for (const endpoint of Object.values(stack.endpoints)) expect(endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stack.env).toMatchObject({
      AWS_ENDPOINT_URL_DYNAMODB: stack.endpoints.dynamodb,
      AWS_ENDPOINT_URL_S3: stack.endpoints.s3,
      AWS_ENDPOINT_URL_SQS: stack.endpoints.sqs,
      S3_FORCE_PATH_STYLE: 'true',
      FILES_BUCKET_NAME: 'customer-api-local-files',
      IMPORT_QUEUE_URL: `${stack.endpoints.sqs}/000000000000/${PREFIX}-${IMPORT_QUEUE.id}`,
      IMPORT_DLQ_URL: `${stack.endpoints.sqs}/000000000000/${PREFIX}-${IMPORT_QUEUE.deadLetterId}`,
    });
    for (const spec of Object.values(TABLES)) expect(stack.env[spec.envVar]).toBe(physicalTableName(PREFIX, spec.id));
  });

  it('binds DynamoDB Local, s3rver and fauxqs to loopback only', () => {
    for (const endpoint of Object.values(stack.endpoints)) {
      const addresses = listenAddresses(portOf(endpoint));
      if (addresses === undefined) return; // not Linux
      expect(addresses).toEqual(['127.0.0.1']);
    }
  });

  it('creates every table of TABLES with its keys, GSIs (with their projection: keys only for the active-jobs index) and TTL', async () => {
    for (const spec of Object.values(TABLES)) {
      const TableName = physicalTableName(PREFIX, spec.id);
      const { Table } = await aws.dynamo.send(new DescribeTableCommand({ TableName }));
      expect(Table?.BillingModeSummary?.BillingMode).toBe('PAY_PER_REQUEST');
      expect(Table?.KeySchema).toEqual([
        { AttributeName: spec.partitionKey.name, KeyType: 'HASH' },
        ...(spec.sortKey ? [{ AttributeName: spec.sortKey.name, KeyType: 'RANGE' }] : []),
      ]);
      // DescribeTable lists indexes in no promised order.
      const byName = (a: { name?: string }, b: { name?: string }) => (a.name ?? '').localeCompare(b.name ?? '');
      const indexes = (Table?.GlobalSecondaryIndexes ?? [])
        .map((index) => ({ name: index.IndexName, keys: index.KeySchema?.map((key) => key.AttributeName), projection: index.Projection?.ProjectionType }))
        .sort(byName);
      expect(indexes).toEqual(
        spec.globalIndexes
          .map((index) => ({
            name: index.indexName,
            keys: [index.partitionKey.name, ...(index.sortKey ? [index.sortKey.name] : [])],
            projection: index.projection,
          }))
          .sort(byName),
      );
      const ttl = await aws.dynamo.send(new DescribeTimeToLiveCommand({ TableName }));
      if (spec.ttlAttribute === undefined) {
        expect(ttl.TimeToLiveDescription?.TimeToLiveStatus ?? 'DISABLED').toBe('DISABLED');
      } else {
        expect(ttl.TimeToLiveDescription).toMatchObject({ TimeToLiveStatus: 'ENABLED', AttributeName: spec.ttlAttribute });
      }
    }
  });

  it('runs transactions with a condition check', async () => {
    const keys = stack.env.KEYS_TABLE_NAME!;
    const inventory = stack.env.INVENTORY_TABLE_NAME!;
    const transaction = new TransactWriteItemsCommand({
      TransactItems: [
        { ConditionCheck: { TableName: keys, Key: { pk: { S: 'KEY#tx' } }, ConditionExpression: 'attribute_exists(pk)' } },
        { Put: { TableName: inventory, Item: { pk: { S: 'ORG#tx' }, sk: { S: 'ITEM#1' }, qty: { N: '3' } } } },
      ],
    });
    await expect(aws.dynamo.send(transaction)).rejects.toMatchObject({ name: 'TransactionCanceledException' });
    await aws.dynamo.send(new PutItemCommand({ TableName: keys, Item: { pk: { S: 'KEY#tx' } } }));
    await aws.dynamo.send(transaction);
    const { Item } = await aws.dynamo.send(new GetItemCommand({ TableName: inventory, Key: { pk: { S: 'ORG#tx' }, sk: { S: 'ITEM#1' } } }));
    expect(Item?.qty).toEqual({ N: '3' });
  });

  it('stores objects and serves presigned GET URLs, refusing expired ones', async () => {
    const Bucket = stack.env.FILES_BUCKET_NAME!;
    await aws.s3.send(new PutObjectCommand({ Bucket, Key: 'imports/a.csv', Body: 'sku,qty\nA,1\n', ContentType: 'text/csv' }));
    const object = await aws.s3.send(new GetObjectCommand({ Bucket, Key: 'imports/a.csv' }));
    expect(await object.Body?.transformToString()).toBe('sku,qty\nA,1\n');

    const url = await getSignedUrl(aws.s3, new GetObjectCommand({ Bucket, Key: 'imports/a.csv' }), { expiresIn: 60 });
    expect(url.startsWith(`${stack.endpoints.s3}/${Bucket}/imports/a.csv?`)).toBe(true);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('sku,qty\nA,1\n');

    const expired = await getSignedUrl(aws.s3, new GetObjectCommand({ Bucket, Key: 'imports/a.csv' }), {
      expiresIn: 1,
      signingDate: new Date(Date.now() - 60_000),
    });
    const refused = await fetch(expired);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Request has expired');
  });

  it('sends and receives on the import queue, which redrives to its DLQ', async () => {
    const QueueUrl = stack.env.IMPORT_QUEUE_URL!;
    const dlqUrl = stack.env.IMPORT_DLQ_URL!;
    const { Attributes } = await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl, AttributeNames: ['All'] }));
    const { Attributes: dlq } = await aws.sqs.send(new GetQueueAttributesCommand({ QueueUrl: dlqUrl, AttributeNames: ['QueueArn'] }));
    expect(Attributes?.VisibilityTimeout).toBe(String(IMPORT_QUEUE.visibilityTimeoutSeconds));
    expect(JSON.parse(Attributes?.RedrivePolicy ?? '{}')).toEqual({
      deadLetterTargetArn: dlq?.QueueArn,
      maxReceiveCount: IMPORT_QUEUE.maxReceiveCount,
    });

    await aws.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: '{"jobId":"j1"}' }));
    const received = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 1 }));
    expect(received.Messages?.map((m) => m.Body)).toEqual(['{"jobId":"j1"}']);
    await aws.sqs.send(new DeleteMessageCommand({ QueueUrl, ReceiptHandle: received.Messages![0]!.ReceiptHandle! }));

    // A message received maxReceiveCount times without being deleted moves to the DLQ.
    await aws.sqs.send(new SendMessageCommand({ QueueUrl, MessageBody: 'poison' }));
    for (let i = 0; i < IMPORT_QUEUE.maxReceiveCount; i++) {
      const attempt = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl, VisibilityTimeout: 0, WaitTimeSeconds: 1 }));
      expect(attempt.Messages?.map((m) => m.Body)).toEqual(['poison']);
    }
    const afterLimit = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl, WaitTimeSeconds: 0 }));
    expect(afterLimit.Messages ?? []).toEqual([]);
    const dead = await aws.sqs.send(new ReceiveMessageCommand({ QueueUrl: dlqUrl, WaitTimeSeconds: 1 }));
    expect(dead.Messages?.map((m) => m.Body)).toEqual(['poison']);
  });

  it('is usable by a process configured only through stack.env (SDK clients built with no options)', async () => {
    const script = `
      import { DynamoDBClient, DescribeTableCommand } from '@aws-sdk/client-dynamodb';
      import { S3Client, HeadBucketCommand } from '@aws-sdk/client-s3';
      import { SQSClient, SendMessageCommand } from '@aws-sdk/client-sqs';
      const env = process.env;
      await new DynamoDBClient({}).send(new DescribeTableCommand({ TableName: env.INVENTORY_TABLE_NAME }));
      await new S3Client({ forcePathStyle: env.S3_FORCE_PATH_STYLE === 'true' }).send(new HeadBucketCommand({ Bucket: env.FILES_BUCKET_NAME }));
      await new SQSClient({}).send(new SendMessageCommand({ QueueUrl: env.IMPORT_DLQ_URL, MessageBody: 'from env' }));
      console.log('ok');
    `;
    const { stdout } = await run(process.execPath, ['--no-warnings', '--input-type=module', '-e', script], {
      cwd: process.cwd(),
      env: { PATH: process.env.PATH, ...stack.env },
    });
    expect(stdout.trim()).toBe('ok');
  });

  it('commits a transaction of 100 actions, as AWS does, and refuses 101', async () => {
    const TableName = stack.env.INVENTORY_TABLE_NAME!;
    const puts = (count: number, prefix: string) =>
      Array.from({ length: count }, (_, index) => ({
        Put: { TableName, Item: { pk: { S: `ORG#${prefix}` }, sk: { S: `ITEM#${index}` } } },
      }));
    await aws.dynamo.send(new TransactWriteItemsCommand({ TransactItems: puts(100, 'tx100') }));
    const { Item } = await aws.dynamo.send(new GetItemCommand({ TableName, Key: { pk: { S: 'ORG#tx100' }, sk: { S: 'ITEM#99' } } }));
    expect(Item).toBeDefined();
    await expect(aws.dynamo.send(new TransactWriteItemsCommand({ TransactItems: puts(101, 'tx101') }))).rejects.toMatchObject({
      name: 'ValidationException',
    });
  });

  it('accepts empty strings inside attribute values, as AWS has since 2020', async () => {
    const TableName = stack.env.INVENTORY_TABLE_NAME!;
    const Item = { pk: { S: 'ORG#empty' }, sk: { S: 'ITEM#1' }, note: { S: '' }, warnings: { L: [{ M: { column: { S: '' } } }] } };
    await aws.dynamo.send(new PutItemCommand({ TableName, Item }));
    const read = await aws.dynamo.send(new GetItemCommand({ TableName, Key: { pk: Item.pk, sk: Item.sk } }));
    expect(read.Item).toEqual(Item);
  });

  it('stops the java process and closes every port; stop() is idempotent', async () => {
    const { dynamodbPid } = awsStackInternals(stack);
    expect(processExists(dynamodbPid)).toBe(true);
    await Promise.all([stack.stop(), stack.stop()]);
    await stack.stop();
    expect(() => process.kill(dynamodbPid, 0)).toThrow();
    for (const endpoint of Object.values(stack.endpoints)) expect(await portIsClosed(portOf(endpoint))).toBe(true);
    expect(readdirSync(stateDir).filter((name) => name.startsWith('s3-in-memory-'))).toEqual([]);
  });
});

describe('local AWS stack, persistent', () => {
  let stateDir: string;

  beforeAll(async () => {
    stateDir = await mkdtemp(join(tmpdir(), 'aws-stack-persist-'));
  });

  afterAll(async () => {
    if (stateDir) await rm(stateDir, { recursive: true, force: true });
  });

  it('keeps tables, items and objects across a restart', async () => {
    const first = await startAwsStack({ stateDir });
    try {
      const aws = clients(first);
      await aws.dynamo.send(new PutItemCommand({ TableName: first.env.INVENTORY_TABLE_NAME, Item: { pk: { S: 'ORG#p' }, sk: { S: 'ITEM#p' } } }));
      await aws.s3.send(new PutObjectCommand({ Bucket: first.env.FILES_BUCKET_NAME, Key: 'kept.txt', Body: 'kept' }));
    } finally {
      await first.stop();
    }
    expect(existsSync(join(stateDir, 'dynamodb', 'shared-local-instance.db'))).toBe(true);

    const lines: string[] = [];
    const second = await startAwsStack({ stateDir, log: (line) => lines.push(line) });
    try {
      const aws = clients(second);
      const { Item } = await aws.dynamo.send(
        new GetItemCommand({ TableName: second.env.INVENTORY_TABLE_NAME, Key: { pk: { S: 'ORG#p' }, sk: { S: 'ITEM#p' } } }),
      );
      expect(Item).toEqual({ pk: { S: 'ORG#p' }, sk: { S: 'ITEM#p' } });
      const object = await aws.s3.send(new GetObjectCommand({ Bucket: second.env.FILES_BUCKET_NAME, Key: 'kept.txt' }));
      expect(await object.Body?.transformToString()).toBe('kept');
      // Nothing re-created, nothing re-compiled.
      expect(lines.filter((line) => /created table|compiling/.test(line))).toEqual([]);
    } finally {
      await second.stop();
    }
  }, 120_000);
});

describe('local AWS stack, owner killed', () => {
  it('does not leave DynamoDB Local running when the owning process is SIGKILLed', async () => {
    const stateDir = await mkdtemp(join(tmpdir(), 'aws-stack-orphan-'));
    const moduleUrl = new URL('../../local/aws-stack/index.ts', import.meta.url).href;
    const script = `
      const { startAwsStack, awsStackInternals } = await import(${JSON.stringify(moduleUrl)});
      const stack = await startAwsStack({ stateDir: ${JSON.stringify(stateDir)}, inMemory: true });
      console.log(JSON.stringify({ pid: awsStackInternals(stack).dynamodbPid }));
      setInterval(() => {}, 1000);
    `;
    const owner = spawn(process.execPath, ['--no-warnings', '--import', 'tsx', '--input-type=module', '-e', script], {
      cwd: process.cwd(),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      owner.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      owner.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 60_000;
      while (!output.includes('{"pid"')) {
        if (owner.exitCode !== null || Date.now() > deadline) throw new Error(`owner did not start the stack:\n${output}`);
        await sleep(100);
      }
      const { pid } = JSON.parse(output.slice(output.indexOf('{"pid"')).split('\n')[0]!) as { pid: number };
      expect(processExists(pid)).toBe(true);

      owner.kill('SIGKILL');
      const gone = Date.now() + 10_000;
      while (processExists(pid) && Date.now() < gone) await sleep(100);
      expect(processExists(pid)).toBe(false);
    } finally {
      if (owner.exitCode === null) owner.kill('SIGKILL');
      await rm(stateDir, { recursive: true, force: true });
    }
  }, 90_000);
});
