import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { documentClient, dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { eventSequenceEntity } from '../../lib/platform/dynamo/entities.ts';
import { eventBatchItems } from '../../lib/platform/dynamo/event-batches.ts';
import { uniqueOrganization } from '../support/api.ts';
import { countDynamoDbRequests, type RequestCounter } from '../../local/dynamodb-requests.ts';
import { commit, eventDraft, tableName } from '../support/events.ts';
import { sequenceOfEventId } from '../../lib/platform/events/event-id.ts';

/**
 * The writer numbers events from the last sequence it committed for the organization, without
 * reading the counter first; a stale number (another container wrote since) costs one cancelled
 * transaction, which returns the counter's value, and never a gap or a duplicate.
 */

let counter: RequestCounter;
beforeEach(() => {
  counter = countDynamoDbRequests(dynamoClient);
});
afterEach(() => counter.stop());

/** Another container commits `count` events for the organization, moving the counter on. */
async function commitElsewhere(organizationId: string, last: number, count: number): Promise<void> {
  const now = new Date();
  const envelopes = Array.from({ length: count }, (_, index) => ({
    id: `evt_elsewhere_${last + 1 + index}`,
    type: 'item.created' as const,
    version: 1 as const,
    occurredAt: now.toISOString(),
    organizationId,
    data: {},
  }));
  for (const item of eventBatchItems(envelopes, last + 1, now)) await documentClient.send(new PutCommand({ TableName: tableName('events'), Item: item }));
  await documentClient.send(
    new UpdateCommand({
      TableName: tableName('events'),
      Key: eventSequenceEntity.key({ organizationId }),
      UpdateExpression: 'SET #last = :last',
      ExpressionAttributeNames: { '#last': 'last' },
      ExpressionAttributeValues: { ':last': last + count },
    }),
  );
}

describe('TransactionWriter sequence hints', () => {
  it('reads the counter for the first write of an organization only', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    await commit(organizationId, [eventDraft('item.created')]);
    const first = counter.operations();
    counter.reset();
    // Act
    const second = await commit(organizationId, [eventDraft('item.created'), eventDraft('item.created')]);
    // Assess
    expect(first).toEqual(['GetItem', 'TransactWriteItems']);
    expect(counter.operations()).toEqual(['TransactWriteItems']);
    expect(second.events.map((event) => sequenceOfEventId(event.id))).toEqual([2, 3]);
  });

  it('recovers from a stale hint with one cancelled transaction, numbering after the other writer', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    await commit(organizationId, [eventDraft('item.created')]);
    await commitElsewhere(organizationId, 1, 3);
    counter.reset();
    // Act
    const result = await commit(organizationId, [eventDraft('item.created')]);
    // Assess
    expect(counter.requests.map(({ operation, failed }) => `${operation}${failed ? ' (cancelled)' : ''}`)).toEqual([
      'TransactWriteItems (cancelled)',
      'TransactWriteItems',
    ]);
    expect(result.attempts).toBe(2);
    expect(result.events.map((event) => sequenceOfEventId(event.id))).toEqual([5]);
  });
});
