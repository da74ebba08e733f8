import { mkdir } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { BUCKET_ENV_VAR, FILES_BUCKET, IMPORT_DLQ_ENV_VAR, TABLES, physicalTableName } from '../../lib/platform/storage/tables.ts';
import { DEFAULT_RESOURCE_PREFIX, LOCAL_CREDENTIALS, LOCAL_REGION } from './constants.ts';
import { startDynamoDbLocal, type DynamoDbLocal } from './dynamodb-local.ts';
import { ensureQueues, ensureTables } from './provision.ts';
import { startS3, type LocalS3 } from './s3.ts';
import { startSqs, type LocalSqs } from './sqs.ts';

/**
 * The embedded local AWS stack used by `npm start` and the integration tests: DynamoDB Local 3.x
 * (see dynamodb-local.ts), s3rver and fauxqs, all on 127.0.0.1, with the
 * tables, bucket and queues of lib/platform/storage/tables.ts.
 */

export interface AwsStackOptions {
  /** Persistent state lives under it (dynamodb/, s3/, sqs/); created if missing. */
  stateDir: string;
  /** DynamoDB Local -inMemory, s3rver in a throwaway `<stateDir>/s3-in-memory-*` dir removed on stop, queues unjournaled (tests). */
  inMemory?: boolean;
  /** 0 or undefined = pick a free port on 127.0.0.1. */
  ports?: { dynamodb?: number; s3?: number; sqs?: number };
  /** Default 'customer-api-local'. */
  resourcePrefix?: string;
  log?: (line: string) => void;
}

export interface AwsStack {
  endpoints: { dynamodb: string; s3: string; sqs: string };
  /**
   * Environment a process needs to use the stack with AWS SDK v3 (AWS_REGION, fake credentials,
   * AWS_ENDPOINT_URL_DYNAMODB / _S3 / _SQS, S3_FORCE_PATH_STYLE=true, each TABLES[*].envVar =
   * physical name, FILES_BUCKET_NAME, each QUEUES[*].envVar / deadLetterEnvVar = its URL).
   */
  env: Record<string, string>;
  /** Stops every child process and server; idempotent. */
  stop(): Promise<void>;
}

/** Also exported for diagnostics (tests check the java process). */
export interface AwsStackInternals {
  dynamodbPid: number;
  startupMs: number;
}

const internals = new WeakMap<AwsStack, AwsStackInternals>();

export function awsStackInternals(stack: AwsStack): AwsStackInternals {
  const found = internals.get(stack);
  if (found === undefined) throw new Error('Not a stack returned by startAwsStack');
  return found;
}

export { IMPORT_DLQ_ENV_VAR };

/** A free TCP port on 127.0.0.1 (for DynamoDB Local, which cannot report the port it bound). */
export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolvePort(port));
    });
  });
}

export async function startAwsStack(options: AwsStackOptions): Promise<AwsStack> {
  const started = performance.now();
  const log = options.log ?? (() => undefined);
  const prefix = options.resourcePrefix ?? DEFAULT_RESOURCE_PREFIX;
  const stateDir = resolve(options.stateDir);
  const inMemory = options.inMemory ?? false;
  await mkdir(stateDir, { recursive: true });

  // The three start concurrently; the JVM dominates, so s3rver and fauxqs cost nothing extra.
  const results = await Promise.allSettled([
    startDynamoDbLocal({ stateDir, inMemory, port: options.ports?.dynamodb || undefined, log, pickPort: freePort }),
    startS3({ stateDir, inMemory, port: options.ports?.s3 ?? 0, bucket: FILES_BUCKET.localName, log }),
    startSqs({ port: options.ports?.sqs ?? 0, ...(inMemory ? {} : { stateDir }) }),
  ]);
  const stoppers = results.flatMap((result) => (result.status === 'fulfilled' ? [result.value.stop] : []));
  const stopAll = async (): Promise<void> => {
    const stopped = await Promise.allSettled(stoppers.map((stopOne) => stopOne()));
    for (const result of stopped) {
      if (result.status === 'rejected') log(`stopping the local AWS stack: ${(result.reason as Error).message}`);
    }
  };
  const failure = results.find((result) => result.status === 'rejected');
  if (failure !== undefined) {
    await stopAll();
    throw failure.reason;
  }
  const [dynamodb, s3, sqs] = results.map((result) => (result as PromiseFulfilledResult<unknown>).value) as [DynamoDbLocal, LocalS3, LocalSqs];
  const serversMs = Math.round(performance.now() - started);
  log(`DynamoDB Local ${dynamodb.endpoint} (pid ${dynamodb.pid}), s3rver ${s3.endpoint}, fauxqs ${sqs.endpoint}: up in ${serversMs} ms`);

  const clientConfig = { region: LOCAL_REGION, credentials: LOCAL_CREDENTIALS, maxAttempts: 2 };
  const dynamoClient = new DynamoDBClient({ ...clientConfig, endpoint: dynamodb.endpoint });
  const sqsClient = new SQSClient({ ...clientConfig, endpoint: sqs.endpoint });
  let queues;
  try {
    [, queues] = await Promise.all([ensureTables(dynamoClient, prefix, log), ensureQueues(sqsClient, prefix)]);
  } catch (error) {
    await stopAll();
    throw error;
  } finally {
    dynamoClient.destroy();
    sqsClient.destroy();
  }

  const env: Record<string, string> = {
    AWS_REGION: LOCAL_REGION,
    AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
    AWS_ENDPOINT_URL_DYNAMODB: dynamodb.endpoint,
    AWS_ENDPOINT_URL_S3: s3.endpoint,
    AWS_ENDPOINT_URL_SQS: sqs.endpoint,
    S3_FORCE_PATH_STYLE: 'true',
    [BUCKET_ENV_VAR]: FILES_BUCKET.localName,
  };
  for (const { spec, queueUrl, deadLetterQueueUrl } of queues) {
    env[spec.envVar] = queueUrl;
    env[spec.deadLetterEnvVar] = deadLetterQueueUrl;
  }
  for (const spec of Object.values(TABLES)) env[spec.envVar] = physicalTableName(prefix, spec.id);

  let stopping: Promise<void> | undefined;
  const stack: AwsStack = {
    endpoints: { dynamodb: dynamodb.endpoint, s3: s3.endpoint, sqs: sqs.endpoint },
    env,
    stop: () => (stopping ??= stopAll()),
  };
  const startupMs = Math.round(performance.now() - started);
  internals.set(stack, { dynamodbPid: dynamodb.pid, startupMs });
  log(`local AWS stack ready in ${startupMs} ms (state: ${inMemory ? 'in memory' : stateDir})`);
  return stack;
}
