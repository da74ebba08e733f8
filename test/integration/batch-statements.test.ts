import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { documentClient, dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { BatchWritePuts } from '../../lib/platform/dynamo/batch-write-puts.ts';
import { insertStatement, BatchStatements, updateStatement } from '../../lib/platform/dynamo/batch-statements.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName } from '../support/events.ts';

/** Single-item writes sent many to a request (lib/platform/dynamo/batch-statements.ts), on DynamoDB Local. */
const table = () => tableName('inventory');
const keyOf = (pk: string, sk: string) => ({ pk, sk });

describe('statement batches', () => {
  it('thirty writes asked at once go in two requests; each succeeds or is refused on its own', async () => {
    const pk = `TEST#BATCHES#${uniqueOrganization()}`;
    const batches = new BatchStatements();
    await batches.write(insertStatement(table(), { pk, sk: 'taken', n: 1 }));
    const counter = countDynamoDbRequests(dynamoClient);
    try {
      const outcomes = await Promise.all([
        ...Array.from({ length: 29 }, (_, index) => batches.write(insertStatement(table(), { pk, sk: `item${index}`, n: index }))),
        batches.write(insertStatement(table(), { pk, sk: 'taken', n: 2 })),
      ]);
      expect(outcomes.slice(0, 29).every((outcome) => outcome.written)).toBe(true);
      expect(outcomes[29]).toEqual({ written: false, reason: 'duplicate-item', item: undefined });
      expect(counter.operations()).toEqual(['BatchExecuteStatement', 'BatchExecuteStatement']);
    } finally {
      counter.stop();
    }
    const { Item } = await documentClient.send(new GetCommand({ TableName: table(), Key: keyOf(pk, 'taken'), ConsistentRead: true }));
    expect(Item?.n).toBe(1);
  });

  it('a refused condition returns the item as it stood; an absent item is refused with none', async () => {
    const pk = `TEST#BATCHES#${uniqueOrganization()}`;
    const batches = new BatchStatements();
    await batches.write(insertStatement(table(), { pk, sk: 'task', task: { status: 'pending', inFlight: { attemptId: 'a1' } } }));
    const refused = await batches.write(
      updateStatement(table(), keyOf(pk, 'task'), {
        set: { 'task.status': 'succeeded' },
        conditions: { 'task.inFlight.attemptId': 'other' },
        returnOldItem: true,
      }),
    );
    expect(refused).toMatchObject({ written: false, reason: 'condition-failed', item: { task: { status: 'pending' } } });
    const absent = await batches.write(
      updateStatement(table(), keyOf(pk, 'missing'), { set: { status: 'x' }, conditions: { status: 'pending' }, returnOldItem: true }),
    );
    expect(absent).toEqual({ written: false, reason: 'condition-failed', item: undefined });
    const written = await batches.write(
      updateStatement(table(), keyOf(pk, 'task'), {
        set: { 'task.status': 'succeeded', 'task.inFlight': null },
        remove: ['gone'],
        conditions: { 'task.inFlight.attemptId': 'a1' },
      }),
    );
    expect(written).toEqual({ written: true });
    const { Item } = await documentClient.send(new GetCommand({ TableName: table(), Key: keyOf(pk, 'task'), ConsistentRead: true }));
    expect(Item?.task).toEqual({ status: 'succeeded', inFlight: null });
  });

  it('two writes of one item asked at once go in turn (DynamoDB refuses a batch naming an item twice)', async () => {
    const pk = `TEST#BATCHES#${uniqueOrganization()}`;
    const batches = new BatchStatements();
    const [inserted, updated] = await Promise.all([
      batches.write(insertStatement(table(), { pk, sk: 'entry', status: 'pending' })),
      batches.write(updateStatement(table(), keyOf(pk, 'entry'), { set: { status: 'succeeded' }, conditions: { status: 'pending' } })),
    ]);
    expect([inserted, updated]).toEqual([{ written: true }, { written: true }]);
    const { Item } = await documentClient.send(new GetCommand({ TableName: table(), Key: keyOf(pk, 'entry'), ConsistentRead: true }));
    expect(Item?.status).toBe('succeeded');
  });
});

describe('a request of a later round that fails', () => {
  it('fails only the writes it carried: those an earlier request wrote keep their outcome', async () => {
    const pk = `TEST#BATCHES#${uniqueOrganization()}`;
    const batches = new BatchStatements();
    const name = 'failSecondRound';
    let requests = 0;
    dynamoClient.middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'BatchExecuteStatementCommand' && (requests += 1) === 2) throw new Error('injected: the second request failed');
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      // The update names the same item as the insert: it goes in a second request, which fails.
      const [inserted, other, updated] = await Promise.allSettled([
        batches.write(insertStatement(table(), { pk, sk: 'entry', status: 'pending' })),
        batches.write(insertStatement(table(), { pk, sk: 'other', status: 'pending' })),
        batches.write(updateStatement(table(), keyOf(pk, 'entry'), { set: { status: 'succeeded' }, conditions: { status: 'pending' } })),
      ]);
      expect(inserted).toEqual({ status: 'fulfilled', value: { written: true } });
      expect(other).toEqual({ status: 'fulfilled', value: { written: true } });
      expect(updated.status).toBe('rejected');
    } finally {
      dynamoClient.middlewareStack.remove(name);
    }
  });
});

describe('put batches', () => {
  it('thirty puts asked at once go in two BatchWriteItems; two puts of one item go in turn, the later one standing', async () => {
    const pk = `TEST#PUTS#${uniqueOrganization()}`;
    const puts = new BatchWritePuts();
    const counter = countDynamoDbRequests(dynamoClient);
    try {
      await Promise.all([
        ...Array.from({ length: 28 }, (_, index) => puts.put(table(), { pk, sk: `item${index}`, n: index })),
        puts.put(table(), { pk, sk: 'twice', n: 1 }),
        puts.put(table(), { pk, sk: 'twice', n: 2 }),
      ]);
      expect(counter.operations().every((operation) => operation === 'BatchWriteItem')).toBe(true);
      expect(counter.operations().length).toBeLessThanOrEqual(3);
    } finally {
      counter.stop();
    }
    const { Item } = await documentClient.send(new GetCommand({ TableName: table(), Key: keyOf(pk, 'twice'), ConsistentRead: true }));
    expect(Item?.n).toBe(2);
  });
});
