import {
  CreateTableCommand,
  DescribeTableCommand,
  DescribeTimeToLiveCommand,
  ListTablesCommand,
  UpdateTableCommand,
  UpdateTimeToLiveCommand,
  type DynamoDBClient,
} from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, GetQueueAttributesCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { QUEUE_IDS, QUEUES, TABLES, physicalQueueName, type QueueSpec, type TableSpec } from '../../lib/platform/storage/tables.ts';
import { createTableInput } from './create-tables.ts';

type Log = (line: string) => void;

/**
 * Creates every table of TABLES that does not exist yet (a persistent database keeps existing
 * ones and their data), adds GSIs a spec gained since, and enables TTL where the spec sets it.
 */
export async function ensureTables(client: DynamoDBClient, prefix: string, log: Log): Promise<void> {
  const existing = new Set<string>();
  let start: string | undefined;
  do {
    const page = await client.send(new ListTablesCommand({ ExclusiveStartTableName: start }));
    for (const name of page.TableNames ?? []) existing.add(name);
    start = page.LastEvaluatedTableName;
  } while (start !== undefined);

  await Promise.all(Object.values(TABLES).map((spec) => ensureTable(client, prefix, spec, existing, log)));
}

async function ensureTable(client: DynamoDBClient, prefix: string, spec: TableSpec, existing: ReadonlySet<string>, log: Log): Promise<void> {
  const input = createTableInput(prefix, spec);
  const TableName = input.TableName as string;
  let created = false;
  if (!existing.has(TableName)) {
    try {
      await client.send(new CreateTableCommand(input));
      created = true;
      log(`created table ${TableName}`);
    } catch (error) {
      if ((error as Error).name !== 'ResourceInUseException') throw error;
    }
  }
  if (!created) await reconcileTable(client, TableName, input, log);

  if (spec.ttlAttribute !== undefined) {
    if (!created) {
      const ttl = await client.send(new DescribeTimeToLiveCommand({ TableName }));
      const current = ttl.TimeToLiveDescription;
      if (current?.TimeToLiveStatus === 'ENABLED' && current.AttributeName === spec.ttlAttribute) return;
    }
    await client.send(
      new UpdateTimeToLiveCommand({
        TableName,
        TimeToLiveSpecification: { AttributeName: spec.ttlAttribute, Enabled: true },
      }),
    );
  }
}

/** An existing (persisted) table: same key schema as the spec, plus any GSI added since. */
async function reconcileTable(client: DynamoDBClient, TableName: string, input: ReturnType<typeof createTableInput>, log: Log): Promise<void> {
  const { Table } = await client.send(new DescribeTableCommand({ TableName }));
  const keys = (schema: { AttributeName?: string; KeyType?: string }[] | undefined): string =>
    (schema ?? []).map((k) => `${k.AttributeName}:${k.KeyType}`).join(',');
  if (keys(Table?.KeySchema) !== keys(input.KeySchema)) {
    throw new Error(
      `Local table ${TableName} has key schema ${keys(Table?.KeySchema)} but its spec says ${keys(input.KeySchema)}; ` +
        'delete the local DynamoDB state (<stateDir>/dynamodb) to recreate it.',
    );
  }
  if (input.StreamSpecification && !Table?.StreamSpecification?.StreamEnabled) {
    // A table persisted before its spec gained a stream.
    await client.send(new UpdateTableCommand({ TableName, StreamSpecification: input.StreamSpecification }));
    log(`enabled the stream of table ${TableName}`);
  }
  const present = new Set((Table?.GlobalSecondaryIndexes ?? []).map((index) => index.IndexName));
  for (const index of input.GlobalSecondaryIndexes ?? []) {
    if (present.has(index.IndexName)) continue;
    const names = new Set((index.KeySchema ?? []).map((k) => k.AttributeName));
    await client.send(
      new UpdateTableCommand({
        TableName,
        AttributeDefinitions: (input.AttributeDefinitions ?? []).filter((a) => names.has(a.AttributeName)),
        GlobalSecondaryIndexUpdates: [{ Create: { IndexName: index.IndexName, KeySchema: index.KeySchema, Projection: index.Projection } }],
      }),
    );
    log(`added index ${index.IndexName} to table ${TableName}`);
    if (!(await indexActive(client, TableName, index.IndexName ?? ''))) {
      log(
        `index ${index.IndexName} of table ${TableName} is not active: DynamoDB Local does not build an index added to an existing table, ` +
          'so the routes that read it fail until the local DynamoDB state (<stateDir>/dynamodb) is deleted and the table recreated (docs/operations.md "Local runtime").',
      );
    }
  }
}

/** How long an index just added may take to become ACTIVE before the stack says it will not. */
const INDEX_ACTIVE_WAIT_MS = 5_000;

/** Whether an index just added became ACTIVE (a Query of an index still CREATING fails). */
async function indexActive(client: DynamoDBClient, TableName: string, IndexName: string): Promise<boolean> {
  const deadline = Date.now() + INDEX_ACTIVE_WAIT_MS;
  for (;;) {
    const { Table } = await client.send(new DescribeTableCommand({ TableName }));
    if (Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === IndexName)?.IndexStatus === 'ACTIVE') return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

export interface ProvisionedQueue {
  spec: QueueSpec;
  queueUrl: string;
  deadLetterQueueUrl: string;
}

/** Every queue of QUEUES and its DLQ, with the spec's redrive policy, visibility timeout and retention. */
export async function ensureQueues(client: SQSClient, prefix: string): Promise<ProvisionedQueue[]> {
  return Promise.all(QUEUE_IDS.map((id) => ensureQueue(client, prefix, QUEUES[id])));
}

async function ensureQueue(client: SQSClient, prefix: string, spec: QueueSpec): Promise<ProvisionedQueue> {
  const dlq = await client.send(
    new CreateQueueCommand({
      QueueName: physicalQueueName(prefix, spec.deadLetterId),
      Attributes: { MessageRetentionPeriod: String(spec.deadLetterRetentionDays * 86_400) },
    }),
  );
  const deadLetterQueueUrl = required(dlq.QueueUrl, 'dead-letter queue URL');
  const { Attributes } = await client.send(new GetQueueAttributesCommand({ QueueUrl: deadLetterQueueUrl, AttributeNames: ['QueueArn'] }));
  const deadLetterTargetArn = required(Attributes?.QueueArn, 'dead-letter queue ARN');
  const queue = await client.send(
    new CreateQueueCommand({
      QueueName: physicalQueueName(prefix, spec.id),
      Attributes: {
        VisibilityTimeout: String(spec.visibilityTimeoutSeconds),
        MessageRetentionPeriod: String(spec.messageRetentionDays * 86_400),
        RedrivePolicy: JSON.stringify({ deadLetterTargetArn, maxReceiveCount: spec.maxReceiveCount }),
      },
    }),
  );
  return { spec, queueUrl: required(queue.QueueUrl, `${spec.id} queue URL`), deadLetterQueueUrl };
}

function required<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Local SQS returned no ${what}`);
  return value;
}
