import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ItemAvailabilityReads, type ItemAvailability } from '../../lib/inventory/domain/availability.ts';
import { newRecordId } from '../../lib/inventory/domain/records.ts';
import type { StockRecord } from '../../lib/inventory/domain/stock.ts';
import { dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { ItemAvailabilityStore } from '../../lib/inventory/store/item-availability-store.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { countDynamoDbRequests, type RequestCounter } from '../../local/dynamodb-requests.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { inventoryRecords } from '../support/imports.ts';
import { itemOf } from '../support/stock-world.ts';

/**
 * `GET /v1/items/{id}/availability`'s reads on DynamoDB Local (docs/inventory.md "Reading
 * inventory"), with a budget of 3 stock records a response instead of 1000: whole locations,
 * `afterLocationId` past a location whose id is a prefix of the next one's, a location over the
 * budget alone, lots holding `#`, stored `reserved`, and 2 requests a response.
 */

const NOW = '2026-11-27T10:00:00.000Z';
const ACTOR = { type: 'system' as const, id: 'item-availability-tests' };
const ITEM = 'itm_0000000000availability';

let counter: RequestCounter;
beforeAll(() => {
  counter = countDynamoDbRequests(dynamoClient);
});
afterAll(() => counter.stop());

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

const record = (locationId: string, lot: string, onHand: number, reserved?: number): StockRecord => ({
  id: newRecordId('stock-record'),
  itemId: ITEM,
  sku: 'AVAIL',
  locationId,
  locationCode: `C-${locationId.slice(4)}`,
  lot,
  onHand,
  ...(reserved === undefined ? {} : { reserved }),
  createdAt: NOW,
  updatedAt: NOW,
});

/** Every response from the start, following `nextAfterLocationId` while `truncated`, with the requests of each. */
async function allResponses(organizationId: string, budget: number) {
  const reads = new ItemAvailabilityReads(new ItemAvailabilityStore(tableName('inventory')), budget);
  const responses: Array<{ answer: ItemAvailability; requests: string[] }> = [];
  let after: string | undefined;
  for (;;) {
    counter.reset();
    const answer = await reads.availability(organizationId, ITEM, after);
    responses.push({ answer, requests: counter.operations() });
    if (!answer.truncated) return responses;
    after = answer.nextAfterLocationId ?? undefined;
  }
}

describe('item availability on DynamoDB', () => {
  it('answers whole locations within the budget, one over it alone with its first lots, and goes on after each', async () => {
    // Prepare: loc_000001 (2 lots), loc_0000010 (4 lots: over the budget of 3 alone; its id starts with the first's), loc_000002 (1), loc_000003 (2)
    const organizationId = uniqueOrganization();
    const records = [
      record('loc_000001', 'A', 1, 1),
      record('loc_000001', 'B#2', 2),
      ...['A', 'B', 'C', 'D'].map((lot) => record('loc_0000010', lot, 10)),
      record('loc_000002', 'A', 5, 2),
      record('loc_000003', 'A', 0),
      record('loc_000003', 'B', 3),
    ];
    const store = inventoryRecords();
    await commit(organizationId, [
      ...store.createWrites(organizationId, 'item', itemOf(ITEM, 'AVAIL', { trackingMode: 'lot' })),
      new StockStore(tableName('inventory')).itemStockWrite(organizationId, { itemId: ITEM, onHand: 51, reserved: 3, trackingMode: 'lot' }, null, 'lot'),
    ]);
    await commit(
      organizationId,
      records.flatMap((stock) => store.createWrites(organizationId, 'stock-record', stock)),
    );

    // Act
    const responses = await allResponses(organizationId, 3);

    // Assess
    const shapes = responses.map(({ answer }) => ({
      locations: answer.locations.map((location) => [
        location.locationId,
        location.lots.map((lot) => lot.lot).join(','),
        location.onHand,
        location.reserved,
        location.available,
        location.lotsTruncated,
      ]),
      truncated: answer.truncated,
      next: answer.nextAfterLocationId,
    }));
    expect(shapes).toEqual([
      { locations: [['loc_000001', 'A,B#2', 3, 1, 2, false]], truncated: true, next: 'loc_000001' },
      { locations: [['loc_0000010', 'A,B,C', 30, 0, 30, true]], truncated: true, next: 'loc_0000010' },
      {
        locations: [
          ['loc_000002', 'A', 5, 2, 3, false],
          ['loc_000003', 'A,B', 3, 0, 3, false],
        ],
        truncated: false,
        next: null,
      },
    ]);
    for (const { answer, requests } of responses) {
      expect(answer).toMatchObject({ itemId: ITEM, sku: 'AVAIL', onHand: 51, reserved: 3, available: 48 });
      expect(requests).toEqual(['Query', 'BatchGetItem']);
    }
    const listed = responses.flatMap(({ answer }) => answer.locations.flatMap((location) => location.lots.map((lot) => lot.stockRecordId)));
    expect(listed).toEqual(records.filter((stock) => !(stock.locationId === 'loc_0000010' && stock.lot === 'D')).map((stock) => stock.id));
  });

  it('answers an item with no stock record and no total with zeros, and no item of another organization', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    await commit(organizationId, inventoryRecords().createWrites(organizationId, 'item', itemOf(ITEM, 'AVAIL')));
    const reads = new ItemAvailabilityReads(new ItemAvailabilityStore(tableName('inventory')));

    // Act + Assess
    expect(await reads.availability(organizationId, ITEM)).toEqual({
      itemId: ITEM,
      sku: 'AVAIL',
      onHand: 0,
      reserved: 0,
      available: 0,
      locations: [],
      truncated: false,
      nextAfterLocationId: null,
    });
    await expect(reads.availability(uniqueOrganization(), ITEM)).rejects.toMatchObject({ status: 404 });
  });
});
