import { describe, expect, it } from 'vitest';
import { itemBytes, writeUnitsOf } from '../../../local/write-units.ts';

/** Write units as AWS bills them (local/write-units.ts), counted from the requests. */

const small = { pk: 'ORG#o#WHLOG#whe_1', sk: 'ATT#wha_1', status: 'succeeded', attempt: 1 };
const large = { pk: 'P', sk: 'S', body: 'x'.repeat(1500) };

describe('writeUnitsOf', () => {
  it('a put or update under 1 KB is 1 unit; each started KB more is 1 more; an index whose key the item carries is 1 more', () => {
    expect(writeUnitsOf({ operation: 'PutItem', input: { Item: small } })).toBe(1);
    expect(writeUnitsOf({ operation: 'PutItem', input: { Item: large } })).toBe(2);
    expect(writeUnitsOf({ operation: 'PutItem', input: { Item: { ...small, gsi1pk: 'DUE#01', gsi1sk: 'x' } } })).toBe(2);
    expect(
      writeUnitsOf({
        operation: 'UpdateItem',
        input: {
          Key: { pk: 'P', sk: 'S' },
          UpdateExpression: 'ADD #n :one',
          ExpressionAttributeNames: { '#n': 'n_1' },
          ExpressionAttributeValues: { ':one': 1 },
        },
      }),
    ).toBe(1);
    expect(
      writeUnitsOf({
        operation: 'UpdateItem',
        input: { Key: { pk: 'P', sk: 'S' }, UpdateExpression: 'REMOVE #a', ExpressionAttributeNames: { '#a': 'gsi1pk' } },
      }),
    ).toBe(2);
  });

  it('a refused condition still bills 1 unit; a request that failed otherwise bills none', () => {
    expect(writeUnitsOf({ operation: 'UpdateItem', input: { Key: { pk: 'P' } }, error: 'ConditionalCheckFailedException' })).toBe(1);
    expect(writeUnitsOf({ operation: 'PutItem', input: { Item: small }, error: 'ProvisionedThroughputExceededException' })).toBe(0);
  });

  it('a transactional write bills twice; a BatchWriteItem bills each item it processed; a batch of statements each statement that ran', () => {
    expect(writeUnitsOf({ operation: 'TransactWriteItems', input: { TransactItems: [{ Put: { Item: small } }, { ConditionCheck: {} }] } })).toBe(4);
    const puts = [small, { ...small, sk: 'ATT#wha_2' }, { ...small, sk: 'ATT#wha_3' }].map((Item) => ({ PutRequest: { Item } }));
    expect(writeUnitsOf({ operation: 'BatchWriteItem', input: { RequestItems: { t: puts } }, output: { UnprocessedItems: { t: [puts[2]] } } })).toBe(2);
    const statements = [{ Parameters: ['a'] }, { Parameters: ['b'] }, { Parameters: ['c'] }];
    expect(
      writeUnitsOf({
        operation: 'BatchExecuteStatement',
        input: { Statements: statements },
        output: { Responses: [{}, { Error: { Code: 'ConditionalCheckFailed' } }, { Error: { Code: 'DuplicateItem' } }] },
      }),
    ).toBe(2);
  });

  it('reads bill no write unit', () => {
    expect(writeUnitsOf({ operation: 'GetItem', input: { Key: { pk: 'P' } } })).toBe(0);
  });
});

describe('itemBytes', () => {
  it('counts names and values in UTF-8 bytes', () => {
    expect(itemBytes({ ab: 'é', n: null })).toBe(2 + 2 + 1 + 1);
  });
});
