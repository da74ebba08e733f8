import { BatchWriteCommand, DeleteCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { Location } from '../../lib/inventory/domain/location.ts';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import type { ReservationInput } from '../../lib/reservations/domain/reserve.ts';
import { SettleReservationCommand } from '../../lib/reservations/domain/settle.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import { dynamoClient, documentClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { stockedLotEntity, stockedLotsOf } from '../../lib/inventory/store/entities.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { inventoryRecords } from '../support/imports.ts';
import { reserveAsOf } from '../support/reservations.ts';
import { A1, itemOf } from '../support/stock-world.ts';

/**
 * The reads of a reservation line without `lot` on an item tracked by lot (docs/inventory.md
 * "Reservations and available stock", docs/performance.md "Requests per call"): it reads the lots
 * of the place that hold stock, not every lot the place ever had. Lots received and used up stay
 * as records at 0 for ever; thousands of them must not make a reservation read thousands of
 * records. The place is read once first (a place read before this index existed is indexed by
 * its first read, lib/inventory/store/stocked-lots.ts), then the DynamoDB requests of the next create are
 * counted at the SDK client.
 */

const ACTOR = { type: 'api-key' as const, id: 'key_lot_reads' };
const STORED_AT = Date.parse('2026-11-01T08:00:00.000Z');
const STOCKED = ['S1', 'S2', 'S3'];

/** Stock records of `item` at `location`: `past` lots at 0 (received, used up), then the STOCKED lots holding 5 each. */
function recordsOf(item: Item, location: Location, past: number): StockRecord[] {
  const at = (index: number) => new Date(STORED_AT + index * 1000).toISOString();
  const record = (lot: string, index: number, onHand: number): StockRecord => ({
    id: `stk_${item.sku}_${location.code}_${lot}`,
    itemId: item.id,
    sku: item.sku,
    locationId: location.id,
    locationCode: location.code,
    lot,
    onHand,
    createdAt: at(index),
    updatedAt: at(index),
  });
  return [
    ...Array.from({ length: past }, (_, index) => record(`P${String(index).padStart(5, '0')}`, index, 0)),
    ...STOCKED.map((lot, index) => record(lot, past + index, 5)),
  ];
}

/** Stores the writes as plain puts, 25 a request, a few requests at once (the records' own writes; no transaction needed to seed). */
async function putAll(writes: StoreWrite[]): Promise<void> {
  const items = writes.map((write) => write.item.Put?.Item).filter((item) => item !== undefined);
  const batches: Array<typeof items> = [];
  for (let start = 0; start < items.length; start += 25) batches.push(items.slice(start, start + 25));
  let next = 0;
  const worker = async () => {
    for (let batch = batches[next++]; batch; batch = batches[next++]) {
      let requests = batch.map((Item) => ({ PutRequest: { Item } }));
      while (requests.length > 0) {
        const result = await documentClient.send(new BatchWriteCommand({ RequestItems: { [tableName('inventory')]: requests } }));
        requests = (result.UnprocessedItems?.[tableName('inventory')] ?? []) as typeof requests;
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, worker));
}

/** An organization with `items` items tracked by lot, each with `past` lots at 0 and 3 lots of 5 at A1. */
async function world(items: number, past: number): Promise<{ organizationId: string; items: Item[] }> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const made = Array.from({ length: items }, (_, index) => itemOf(`itm_lots${index}`, `LOTS-${index}`, { trackingMode: 'lot' }));
  const head: StoreWrite[] = [...store.createWrites(organizationId, 'location', A1)];
  for (const item of made)
    head.push(
      ...store.createWrites(organizationId, 'item', item),
      stock.itemStockWrite(organizationId, { itemId: item.id, onHand: 5 * STOCKED.length, trackingMode: 'lot' }, null, 'lot'),
    );
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes: head, events: [], result: undefined }));
  await putAll(made.flatMap((item) => recordsOf(item, A1, past).flatMap((record) => store.createWrites(organizationId, 'stock-record', record))));
  return { organizationId, items: made };
}

/** `Query ×20, BatchGetItem ×3, …`: what a failure names. */
function summary(operations: string[]): string {
  const counts = new Map<string, number>();
  for (const operation of operations) counts.set(operation, (counts.get(operation) ?? 0) + 1);
  return [...counts].map(([operation, count]) => `${operation} ×${count}`).join(', ');
}

const oneLotEach = (items: Item[], reference: string): ReservationInput => ({
  reference,
  expiresAt: null,
  lines: items.map((item) => ({ itemId: item.id, locationId: A1.id, lot: null, quantity: 2 })),
});

/** The DynamoDB requests of one create, by operation. */
async function requestsOfCreate(organizationId: string, input: ReservationInput) {
  const counter = countDynamoDbRequests(dynamoClient);
  try {
    const reservation = await reserveAsOf(organizationId, input, new Date());
    return { reservation, operations: counter.operations() };
  } finally {
    counter.stop();
  }
}

describe('a reservation line without lot reads the lots that hold stock', () => {
  it('an item with 5,000 lots at 0 and 3 holding stock: a bounded number of requests, the oldest lot with stock held', async () => {
    // Prepare: the place read once (indexed), then held from again
    const { organizationId, items } = await world(1, 5_000);
    await reserveAsOf(organizationId, oneLotEach(items, 'FIRST'), new Date());

    // Act
    const { reservation, operations } = await requestsOfCreate(organizationId, oneLotEach(items, 'SECOND'));

    // Assess: the oldest lot with stock (S1 holds 3 more), and no read of the 5,000 lots at 0
    expect(reservation.lines.map((line) => [line.lot, line.quantity])).toEqual([['S1', 2]]);
    expect(operations.filter((operation) => operation === 'BatchGetItem').length, summary(operations)).toBeLessThanOrEqual(6);
    expect(operations.length, summary(operations)).toBeLessThanOrEqual(12);
  }, 120_000);

  it('20 lines on 20 items with 500 lots at 0 each: requests bounded by the lines, not the lots at 0', async () => {
    // Prepare
    const { organizationId, items } = await world(20, 500);
    await reserveAsOf(organizationId, oneLotEach(items, 'FIRST'), new Date());

    // Act
    const { reservation, operations } = await requestsOfCreate(organizationId, oneLotEach(items, 'SECOND'));

    // Assess: one Query per place, the records of the lots with stock in a few batches
    expect(reservation.lines.map((line) => line.lot)).toEqual(items.map(() => 'S1'));
    expect(operations.filter((operation) => operation === 'Query').length, summary(operations)).toBeLessThanOrEqual(20 + 2);
    expect(operations.filter((operation) => operation === 'BatchGetItem').length, summary(operations)).toBeLessThanOrEqual(8);
    expect(operations.length, summary(operations)).toBeLessThanOrEqual(40);
  }, 180_000);

  it('a place stored before the index (no entries, no mark): the first read finds its lots with stock and indexes them', async () => {
    // Prepare: 50 lots at 0 and 3 with stock, their stocked entries and the mark removed (as older code stored them)
    const { organizationId, items } = await world(1, 50);
    const [item] = items as [Item];
    await Promise.all(
      STOCKED.map((lot) =>
        documentClient.send(
          new DeleteCommand({
            TableName: tableName('inventory'),
            Key: stockedLotEntity.key({ organizationId, itemId: item.id, locationId: A1.id, lot }),
          }),
        ),
      ),
    );

    // Act
    const first = await reserveAsOf(organizationId, oneLotEach(items, 'FIRST'), new Date());
    const { reservation, operations } = await requestsOfCreate(organizationId, oneLotEach(items, 'SECOND'));

    // Assess: both held from S1, the oldest lot with stock; the place now indexed and marked
    expect([first, reservation].map((held) => held.lines.map((line) => [line.lot, line.quantity]))).toEqual([[['S1', 2]], [['S1', 2]]]);
    expect(await stockedPartition(organizationId, item)).toEqual(['INDEXED', 'LOT#S1', 'LOT#S2', 'LOT#S3']);
    expect(operations.filter((operation) => operation === 'BatchGetItem').length, summary(operations)).toBeLessThanOrEqual(6);
  }, 120_000);

  it('a lot used up keeps its entry until the next read of the place, which removes it; stocked again, it is found again', async () => {
    // Prepare: S1 (the oldest with stock) fulfilled to 0 by its reservation
    const { organizationId, items } = await world(1, 10);
    const [item] = items as [Item];
    const drained = await reserveAsOf(
      organizationId,
      { reference: 'ALL-S1', expiresAt: null, lines: [{ itemId: item.id, locationId: A1.id, lot: 'S1', quantity: 5 }] },
      new Date(),
    );
    await fulfil(organizationId, drained.id);
    const before = await stockedPartition(organizationId, item);

    // Act: a read of the place, then S1 stocked again (a write from 0 puts its entry back) and read again
    const next = await reserveAsOf(organizationId, oneLotEach(items, 'NEXT'), new Date());
    const after = await stockedPartition(organizationId, item);
    const key = stockRecordKey(item.id, A1.id, 'S1');
    const stored = (await inventoryRecords().getByNaturalKeys(organizationId, 'stock-record', [key])).get(key);
    if (!stored) throw new Error('no S1');
    const restock = inventoryRecords().updateWrites(organizationId, 'stock-record', { ...stored.record, onHand: 4 }, stored.version, 0);
    await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes: restock, events: [], result: undefined }));
    const again = await reserveAsOf(organizationId, oneLotEach(items, 'AGAIN'), new Date());

    // Assess: S1's entry stays until that read, which removes it (and indexes the place); S1 stocked again is the oldest lot held
    expect(before).toEqual(['LOT#S1', 'LOT#S2', 'LOT#S3']);
    expect(next.lines.map((line) => line.lot)).toEqual(['S2']);
    expect(after).toEqual(['INDEXED', 'LOT#S2', 'LOT#S3']);
    expect(again.lines.map((line) => line.lot)).toEqual(['S1']);
  }, 120_000);
});

/** The sort keys of the item's stocked-lots partition at A1. */
async function stockedPartition(organizationId: string, item: Item): Promise<string[]> {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: tableName('inventory'),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': stockedLotsOf(organizationId, item.id, A1.id) },
      ConsistentRead: true,
    }),
  );
  return (result.Items ?? []).map((entry) => entry.sk as string).sort();
}

/** Fulfils everything the reservation holds (the real command and writer). */
async function fulfil(organizationId: string, id: string): Promise<void> {
  const command = new SettleReservationCommand(reservationPorts(tableName('inventory')));
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, () => command.settle(organizationId, id, 'fulfil', undefined));
}
