import { DeleteCommand, GetCommand, PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { Location } from '../../lib/inventory/domain/location.ts';
import { NaturalKeyTakenError, newRecordId } from '../../lib/inventory/domain/records.ts';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import { ImportJobProcessor } from '../../lib/imports/domain/pipeline/process-job.ts';
import { documentClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { entityItem } from '../../lib/platform/dynamo/entity.ts';
import { inventoryListOf, naturalKeyClaimEntity } from '../../lib/inventory/store/entities.ts';
import { meterTransactions, type TransactionMeter } from '../../bench/models/transaction-meter.ts';
import { bulkChunkActions, type StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { commitQueuedJob, csvOf, filesStore, importJobsStore, importRecords, inventoryRecords, itemsOf, locationsOf, storedJob } from '../support/imports.ts';
import { stockAt } from '../support/stock.ts';

/**
 * A stock record's natural key is claimed by its by-item list entry, not by a claim item
 * (docs/architecture.md "Storage: the entity layer"): on DynamoDB Local, a create puts 3 items,
 * two racing creates give one record, and a record of older code, claimed by a claim item alone,
 * is still found by its natural key and updated by later stock rows.
 */

const NOW = '2026-11-22T10:00:00.000Z';
const ACTOR = { type: 'system' as const, id: 'stock-claim-tests' };
const table = () => tableName('inventory');

let meter: TransactionMeter;
beforeAll(() => {
  meter = meterTransactions();
});
afterAll(() => meter.stop());

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

async function runJob(organizationId: string, kind: string, header: string[], rows: string[][]) {
  const { job } = await commitQueuedJob(organizationId, { kind, file: csvOf(header, rows), duplicateStrategy: 'fail' });
  const processor = new ImportJobProcessor({
    jobs: importJobsStore(),
    files: filesStore(),
    records: importRecords(),
    writer: transactionWriter(),
    continueLater: () => Promise.reject(new Error('a job was handed on')),
    chunkActions: bulkChunkActions(),
  });
  expect(await processor.process(organizationId, job.id, () => 600_000)).toBe('finished');
  const stored = await storedJob(organizationId, job.id);
  expect(stored.counts.failed, JSON.stringify(stored.counts)).toBe(0);
}

/** An organization with item BOLT and location A1, no stock. */
async function organizationWithBoltAtA1(): Promise<{ organizationId: string; item: Item; location: Location }> {
  const organizationId = uniqueOrganization();
  await runJob(organizationId, 'items', ['sku', 'name'], [['BOLT', 'Bolt']]);
  await runJob(organizationId, 'locations', ['code', 'name', 'type'], [['A1', 'Bin A1', 'bin']]);
  const item = (await itemsOf(organizationId, ['BOLT'])).get('BOLT')!.record;
  const location = (await locationsOf(organizationId, ['A1'])).get('A1')!.record;
  return { organizationId, item, location };
}

function stockRecordOf(item: Item, location: Location): StockRecord {
  return {
    id: newRecordId('stock-record'),
    itemId: item.id,
    sku: item.sku,
    locationId: location.id,
    locationCode: location.code,
    lot: null,
    onHand: 0,
    createdAt: NOW,
    updatedAt: NOW,
  };
}

/** The organization's stock-record list entries (both orders). */
async function listEntries(organizationId: string) {
  const result = await documentClient.send(
    new QueryCommand({
      TableName: table(),
      KeyConditionExpression: 'pk = :pk',
      ExpressionAttributeValues: { ':pk': inventoryListOf(organizationId, 'stock-record') },
      ConsistentRead: true,
    }),
  );
  return result.Items ?? [];
}

async function claimItemOf(organizationId: string, naturalKey: string) {
  return (
    await documentClient.send(
      new GetCommand({ TableName: table(), Key: naturalKeyClaimEntity.key({ organizationId, recordType: 'stock-record', naturalKey }), ConsistentRead: true }),
    )
  ).Item;
}

describe("a stock record's natural key, claimed by its by-item list entry", () => {
  it('a create writes exactly 3 items: the record and its two list entries, no claim item', async () => {
    // Prepare
    const { organizationId, item, location } = await organizationWithBoltAtA1();
    const record = stockRecordOf(item, location);
    meter.clear();

    // Act
    await commit(organizationId, inventoryRecords().createWrites(organizationId, 'stock-record', record));

    // Assess
    expect(meter.committed.map((transaction) => transaction.tables[table()])).toEqual([3]);
    expect((await listEntries(organizationId)).map((entry) => [entry.sk, entry.id])).toEqual([
      [`ITEM#${stockRecordKey(item.id, location.id, null)}`, record.id],
      [`LOC#${location.id}#${item.id}#`, record.id],
    ]);
    expect(await claimItemOf(organizationId, stockRecordKey(item.id, location.id, null))).toBeUndefined();
    expect((await stockAt(organizationId, item.id, location.id, null)).id).toBe(record.id);
  });

  it('gives exactly one record when two creates of one item × location × lot race; the other fails with NaturalKeyTakenError', async () => {
    // Prepare: two records of the same place
    const { organizationId, item, location } = await organizationWithBoltAtA1();
    const contenders = [stockRecordOf(item, location), stockRecordOf(item, location)];

    // Act
    const outcomes = await Promise.allSettled(
      contenders.map((record) => commit(organizationId, inventoryRecords().createWrites(organizationId, 'stock-record', record))),
    );

    // Assess
    const rejected = outcomes.filter((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    expect(rejected).toHaveLength(1);
    expect(rejected[0]!.reason).toBeInstanceOf(NaturalKeyTakenError);
    expect(rejected[0]!.reason).toMatchObject({ recordType: 'stock-record', naturalKey: stockRecordKey(item.id, location.id, null) });
    const winner = contenders[outcomes.findIndex((outcome) => outcome.status === 'fulfilled')]!;
    const loser = contenders.find((record) => record !== winner)!;
    expect((await stockAt(organizationId, item.id, location.id, null)).id).toBe(winner.id);
    expect(await inventoryRecords().getById(organizationId, 'stock-record', loser.id)).toBeUndefined();
    expect((await listEntries(organizationId)).map((entry) => entry.id)).toEqual([winner.id, winner.id]);
  });

  it('finds a record of older code by its claim item alone, and a later receipt updates it instead of creating a second one', async () => {
    // Prepare: 5 received, then stored as older code left it: a claim item and no list entries
    const { organizationId, item, location } = await organizationWithBoltAtA1();
    const receipt = (poNumber: string, quantity: string) =>
      runJob(organizationId, 'po-receipts', ['poNumber', 'sku', 'locationCode', 'quantity'], [[poNumber, 'BOLT', 'A1', quantity]]);
    await receipt('PO-1', '5');
    const legacy = await stockAt(organizationId, item.id, location.id, null);
    const naturalKey = stockRecordKey(item.id, location.id, null);
    for (const entry of await listEntries(organizationId))
      await documentClient.send(new DeleteCommand({ TableName: table(), Key: { pk: entry.pk, sk: entry.sk } }));
    const claim = entityItem(
      naturalKeyClaimEntity,
      { organizationId, recordType: 'stock-record', naturalKey },
      { organizationId, recordType: 'stock-record', naturalKey, id: legacy.id },
    );
    await documentClient.send(new PutCommand({ TableName: table(), Item: claim }));

    // Act
    const found = await inventoryRecords().getByNaturalKeys(organizationId, 'stock-record', [naturalKey]);
    await receipt('PO-2', '3');

    // Assess: one record, the legacy one, holding both receipts; no record was created
    expect(found.get(naturalKey)?.record.id).toBe(legacy.id);
    const after = await stockAt(organizationId, item.id, location.id, null);
    expect(after).toMatchObject({ id: legacy.id, onHand: 8 });
    expect(await listEntries(organizationId)).toEqual([]);
  });
});
