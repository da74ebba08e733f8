import { CreateTableCommand, DeleteTableCommand, DescribeTableCommand, PutItemCommand, QueryCommand } from '@aws-sdk/client-dynamodb';
import { randomUUID } from 'node:crypto';
import { afterAll, expect, it } from 'vitest';
import { dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { LOTS_INDEX, TABLE_IDS, TABLES, physicalTableName } from '../../lib/platform/storage/tables.ts';
import { createTableInput } from '../../local/aws-stack/create-tables.ts';
import { ensureTables } from '../../local/aws-stack/provision.ts';

/**
 * A local inventory table persisted before the lot-trace index (docs/inventory.md "Tracing a
 * lot") is given it when the stack starts (local/aws-stack/provision.ts). DynamoDB Local has
 * built such an index within seconds in some runs and left it CREATING in others
 * (docs/operations.md "Local runtime"): the start must either see it active, and then it holds
 * the items already stored, or say that it is not.
 */

const prefix = `lots-migration-${randomUUID().slice(0, 8)}`;

afterAll(async () => {
  await Promise.all(TABLE_IDS.map((id) => dynamoClient.send(new DeleteTableCommand({ TableName: physicalTableName(prefix, id) })).catch(() => undefined)));
});

it('adds the lots index to an existing inventory table that lacks it: active with the items already stored, or a warning', async () => {
  // Prepare: the table as it was persisted before the index, with an item carrying its keys.
  const TableName = physicalTableName(prefix, 'inventory');
  const before = { ...TABLES.inventory, globalIndexes: TABLES.inventory.globalIndexes.filter((index) => index.indexName !== LOTS_INDEX.indexName) };
  await dynamoClient.send(new CreateTableCommand(createTableInput(prefix, before)));
  await dynamoClient.send(
    new PutItemCommand({
      TableName,
      Item: { pk: { S: 'ORG#o#bld_1' }, sk: { S: 'POINTER' }, lotPk: { S: 'ORG#o#LOT#itm_1#L1' }, lotSk: { S: 'MADE#2026#bld_1' } },
    }),
  );
  const logged: string[] = [];

  // Act
  await ensureTables(dynamoClient, prefix, (line) => logged.push(line));

  // Assess
  const { Table } = await dynamoClient.send(new DescribeTableCommand({ TableName }));
  expect(Table?.GlobalSecondaryIndexes?.map((index) => index.IndexName).sort()).toEqual(TABLES.inventory.globalIndexes.map((index) => index.indexName).sort());
  expect(logged).toContain(`added index ${LOTS_INDEX.indexName} to table ${TableName}`);
  const warned = logged.some(
    (line) => line.startsWith(`index ${LOTS_INDEX.indexName} of table ${TableName} is not active`) && line.includes('<stateDir>/dynamodb'),
  );
  if (Table?.GlobalSecondaryIndexes?.find((index) => index.IndexName === LOTS_INDEX.indexName)?.IndexStatus === 'ACTIVE' && !warned) {
    const query = new QueryCommand({
      TableName,
      IndexName: LOTS_INDEX.indexName,
      KeyConditionExpression: 'lotPk = :pk',
      ExpressionAttributeValues: { ':pk': { S: 'ORG#o#LOT#itm_1#L1' } },
    });
    expect((await dynamoClient.send(query)).Items?.map((item) => item.sk?.S)).toEqual(['POINTER']);
  } else {
    expect(warned).toBe(true);
  }
}, 30_000);
