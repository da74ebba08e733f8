import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { EventDraft } from '../../lib/platform/events/types.ts';
import { documentClient, dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { keys } from '../../lib/platform/dynamo/keys.ts';
import { WebhookEventSource } from '../../lib/webhooks/store/webhook-queue.ts';
import { uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft, eventFeed, eventsStore, readToTail, seedEvents, tableName, typeAt } from '../support/events.ts';

/**
 * Event batches on DynamoDB Local (docs/events.md "How events are stored"): a transaction's events
 * are one item, split only by size; the feed, the webhook flows' source and the export worker's
 * store read them back in order, envelope text byte for byte, across DynamoDB's 1 MB pages and
 * across legacy one-event items.
 */

/** The stored items of an organization's events partition. */
async function storedItems(organizationId: string): Promise<Array<Record<string, unknown>>> {
  const items: Array<Record<string, unknown>> = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await documentClient.send(
      new QueryCommand({
        TableName: tableName('events'),
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': keys.eventsOf(organizationId) },
        ConsistentRead: true,
        ExclusiveStartKey: startKey,
      }),
    );
    items.push(...(page.Items ?? []));
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

/** A draft whose envelope is about `kilobytes` KB (a long text in its data). */
const largeDraft = (index: number, kilobytes: number): EventDraft => ({
  ...eventDraft(typeAt(index)),
  data: { ...eventDraft(typeAt(index)).data, padding: `${index}:${'p'.repeat(kilobytes * 1000)}` },
});

const textsOf = (events: Array<{ envelopeJson: string }>) => events.map((event) => event.envelopeJson);

describe('event batches', () => {
  it('store the events of one transaction as exactly one item, served in order with byte-identical envelopes', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const drafts = Array.from({ length: 7 }, (_, index) => eventDraft(typeAt(index)));

    // Act
    const { events: committed } = await commit(organizationId, drafts);

    // Assess
    const items = await storedItems(organizationId);
    expect(items).toHaveLength(1);
    expect(items[0]).toMatchObject({
      sk: keys.eventSortKey(7),
      entity: 'event',
      schemaVersion: 3,
      first: 1,
      last: 7,
      types: drafts.map((draft) => draft.type),
    });
    expect(items[0]?.envelopes).toEqual(committed.map((event) => JSON.stringify(event)));
    const page = await eventFeed().read(organizationId, { limit: 50 });
    expect(page.data.map((event) => JSON.stringify(event))).toEqual(committed.map((event) => JSON.stringify(event)));
    expect(textsOf(await new WebhookEventSource(tableName('events')).readFrom(organizationId, 1, 50))).toEqual(committed.map((event) => JSON.stringify(event)));
  });

  it('split a transaction whose events exceed the batch size into consecutive items, still read in order', async () => {
    // Prepare: four ~120 KB events; 350,000 bytes hold two
    const organizationId = uniqueOrganization();
    const drafts = Array.from({ length: 4 }, (_, index) => largeDraft(index, 120));

    // Act
    const { events: committed } = await commit(organizationId, drafts);

    // Assess
    const items = await storedItems(organizationId);
    expect(items.map((item) => [item.first, item.last])).toEqual([
      [1, 2],
      [3, 4],
    ]);
    const served = await eventsStore().readFrom(organizationId, 1, 10);
    expect(served.map((event) => JSON.stringify(event.envelope))).toEqual(committed.map((event) => JSON.stringify(event)));
    expect((await eventsStore().find(organizationId, 3))?.envelope.id).toBe(committed[2]?.id);
  });

  it('read many large events across several batches and 1 MB pages: the feed and a replay get all of them', { timeout: 90_000 }, async () => {
    // Prepare: six transactions of one ~300 KB event, then one of three ~100 KB events (2.1 MB)
    const organizationId = uniqueOrganization();
    const committed = [];
    for (let index = 0; index < 6; index += 1) committed.push(...(await commit(organizationId, [largeDraft(index, 300)])).events);
    committed.push(...(await commit(organizationId, [largeDraft(6, 100), largeDraft(7, 100), largeDraft(8, 100)])).events);
    const expected = committed.map((event) => JSON.stringify(event));

    // Act
    const feed = await readToTail(eventFeed(), organizationId, { limit: 200 });
    const counter = countDynamoDbRequests(dynamoClient);
    const replayPage = await new WebhookEventSource(tableName('events')).readFrom(organizationId, 1, 100).finally(() => counter.stop());
    const fromMiddle = await new WebhookEventSource(tableName('events')).readFrom(organizationId, 8, 100);

    // Assess
    expect(feed.events.map((event) => JSON.stringify(event))).toEqual(expected);
    expect(textsOf(replayPage)).toEqual(expected);
    // DynamoDB stopped pages at 1 MB with items still wanted: the read went on.
    expect(counter.operations().filter((operation) => operation === 'Query').length).toBeGreaterThan(1);
    expect(textsOf(fromMiddle)).toEqual(expected.slice(7));
    expect(feed.pages).toBeLessThanOrEqual(2);
  });

  it('read legacy one-event items and batches as one sequence', async () => {
    // Prepare: legacy 1–3, a batch 4–6 through the writer, legacy 7–8
    const organizationId = uniqueOrganization();
    const early = await seedEvents(organizationId, 3, typeAt, { layout: 'legacy' });
    const { events: batch } = await commit(organizationId, [eventDraft('item.created'), eventDraft('stock.changed'), eventDraft('low-stock')]);
    const late = await seedEvents(organizationId, 2, typeAt, { layout: 'legacy', from: 7 });

    // Act
    const all = await readToTail(eventFeed(), organizationId, { limit: 3 });
    const fromInside = await eventsStore().readFrom(organizationId, 5, 3);
    const found = await Promise.all([2, 5, 7].map((sequence) => eventsStore().find(organizationId, sequence)));

    // Assess
    expect((await storedItems(organizationId)).map((item) => item.schemaVersion)).toEqual([2, 2, 2, 3, 2, 2]);
    expect(all.events.map((event) => event.id)).toEqual([
      ...early.map((event) => event.id),
      ...batch.map((event) => event.id),
      ...late.map((event) => event.id),
    ]);
    expect(fromInside.map((event) => event.sequence)).toEqual([5, 6, 7]);
    expect(found.map((event) => event?.envelope.id)).toEqual([early[1]?.id, batch[1]?.id, late[0]?.id]);
  });
});
