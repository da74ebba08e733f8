import { describe, expect, it } from 'vitest';
import { newId } from '../../lib/platform/core/ids.ts';
import { newMovementId, type Movement, type MovementLeg, type MovementRecord } from '../../lib/inventory/domain/stock.ts';
import { InventoryReadStore } from '../../lib/inventory/store/inventory-reads.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { importRecords, inventoryRecords } from '../support/imports.ts';

/**
 * Movements on DynamoDB Local (docs/inventory.md "The stock model"): each ONE item, found by id,
 * listed, and in the ledger of every stock record it moves; movements stored by older code (a
 * record under the id, a list entry, one item per leg) are read alike.
 */

const ACTOR = { type: 'system' as const, id: 'movements-tests' };
const [ITEM, A1, B1, SOURCE, DESTINATION] = ['itm_M', 'loc_A1', 'loc_B1', 'stk_A1', 'stk_B1'];

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

function movementAt(occurredAt: string, fields: Partial<MovementRecord>, id = newMovementId(occurredAt)): MovementRecord {
  return {
    id,
    type: 'adjustment',
    itemId: ITEM,
    sku: 'M',
    fromLocationId: null,
    toLocationId: null,
    quantity: 1,
    lot: null,
    reference: null,
    occurredAt,
    ...fields,
  };
}

/** The put(s) of a movement as the import pipeline makes them. */
function recordWrites(organizationId: string, movement: MovementRecord, legs: MovementLeg[]): StoreWrite[] {
  return importRecords().writesOf(organizationId, { op: 'record-movement', movement, legs });
}

const entryOf = (movement: MovementRecord, stockRecordId: string, quantity: number): Movement => ({
  id: movement.id,
  stockRecordId,
  quantity,
  type: movement.type,
  reference: movement.reference,
  occurredAt: movement.occurredAt,
});

/**
 * A transfer as older code stored it: the movement under its id, its copy in the list, one item
 * per leg in gsi1. Its id was made when the chunk committed, not from its time.
 */
function legacyTransferWrites(organizationId: string, movement: MovementRecord): StoreWrite[] {
  const put = (item: Record<string, unknown>): StoreWrite => ({ item: { Put: { TableName: tableName('inventory'), Item: item } } });
  const leg = (stockRecordId: string, quantity: number) =>
    put({
      pk: `ORG#${organizationId}#${movement.id}`,
      sk: `LEG#${stockRecordId}`,
      gsi1pk: `ORG#${organizationId}#LEDGER#${stockRecordId}`,
      gsi1sk: `MOV#${movement.occurredAt}#${movement.id}`,
      entity: 'movement',
      schemaVersion: 2,
      organizationId,
      id: movement.id,
      movement: entryOf(movement, stockRecordId, quantity),
    });
  return [
    put({ pk: `ORG#${organizationId}#${movement.id}`, sk: 'RECORD', entity: 'movement-record', schemaVersion: 1, organizationId, id: movement.id, movement }),
    put({
      pk: `ORG#${organizationId}#LIST#movement`,
      sk: `AT#${movement.occurredAt}#${movement.id}`,
      entity: 'inventory-list-entry',
      schemaVersion: 1,
      organizationId,
      recordType: 'movement',
      id: movement.id,
      record: movement,
      itemId: movement.itemId,
      locationIds: [A1, B1],
      movementType: movement.type,
    }),
    leg(SOURCE, -movement.quantity),
    leg(DESTINATION, movement.quantity),
  ];
}

describe('a movement is one stored item', () => {
  it('stores an adjustment and a transfer as ONE Put each, found by id, listed, and in the ledger of each stock record it moves', async () => {
    // Prepare: 5 received into A1, then 2 transferred from A1 to B1
    const organizationId = uniqueOrganization();
    const receipt = movementAt('2026-11-22T10:00:00.000Z', { type: 'receipt', toLocationId: A1, quantity: 5 });
    const transfer = movementAt('2026-11-22T10:05:00.123Z', { type: 'transfer', fromLocationId: A1, toLocationId: B1, quantity: 2, reference: 'T-1' });
    const receiptWrites = recordWrites(organizationId, receipt, [{ stockRecordId: SOURCE, quantity: 5 }]);
    const transferWrites = recordWrites(organizationId, transfer, [
      { stockRecordId: SOURCE, quantity: -2 },
      { stockRecordId: DESTINATION, quantity: 2 },
    ]);

    // Act
    await commit(organizationId, [...receiptWrites, ...transferWrites]);
    const reads = new InventoryReadStore(tableName('inventory'));
    const [byId, listed, atB1, ofSource, ofDestination] = await Promise.all([
      Promise.all([reads.movement(organizationId, receipt.id), reads.movement(organizationId, transfer.id)]),
      reads.movements(organizationId, {}, undefined, 10),
      reads.movements(organizationId, { locationId: B1 }, undefined, 10),
      inventoryRecords().movementsOf(organizationId, SOURCE),
      inventoryRecords().movementsOf(organizationId, DESTINATION),
    ]);

    // Assess
    for (const writes of [receiptWrites, transferWrites]) {
      expect(writes).toHaveLength(1);
      expect(writes[0]?.item.Put?.ConditionExpression).toBe('attribute_not_exists(pk)');
    }
    expect(byId).toEqual([receipt, transfer]);
    expect(listed.items).toEqual([transfer, receipt]);
    expect(atB1.items).toEqual([transfer]);
    expect(ofSource).toEqual([entryOf(receipt, SOURCE, 5), entryOf(transfer, SOURCE, -2)]);
    expect(ofDestination).toEqual([entryOf(transfer, DESTINATION, 2)]);
  });

  it('reads a movement stored by older code by id, in the list and in both ledgers beside new ones, never twice', async () => {
    // Prepare: a legacy transfer whose id was made an hour after it occurred, then a new adjustment of the source
    const organizationId = uniqueOrganization();
    const occurredAt = '2026-11-21T09:00:00.000Z';
    const legacy = movementAt(
      occurredAt,
      { type: 'transfer', fromLocationId: A1, toLocationId: B1, quantity: 3 },
      newId('mov', Date.parse(occurredAt) + 3_600_000),
    );
    const adjustment = movementAt('2026-11-22T08:00:00.000Z', { fromLocationId: A1, quantity: 1 });
    await commit(organizationId, [
      ...legacyTransferWrites(organizationId, legacy),
      ...recordWrites(organizationId, adjustment, [{ stockRecordId: SOURCE, quantity: -1 }]),
    ]);
    const reads = new InventoryReadStore(tableName('inventory'));

    // Act
    const [byId, listed, ofSource, ofDestination] = await Promise.all([
      reads.movement(organizationId, legacy.id),
      reads.movements(organizationId, { itemId: ITEM }, undefined, 10),
      inventoryRecords().movementsOf(organizationId, SOURCE),
      inventoryRecords().movementsOf(organizationId, DESTINATION),
    ]);

    // Assess
    expect(byId).toEqual(legacy);
    expect(listed.items).toEqual([adjustment, legacy]);
    expect(ofSource).toEqual([entryOf(legacy, SOURCE, -3), entryOf(adjustment, SOURCE, -1)]);
    expect(ofDestination).toEqual([entryOf(legacy, DESTINATION, 3)]);
  });

  it('refuses to store a movement under an id not made from its occurredAt: its id would not find it', () => {
    // Prepare
    const movement = movementAt('2026-11-22T10:00:00.000Z', { toLocationId: A1 }, newMovementId('2026-11-22T10:00:00.001Z'));

    // Act / Assess
    expect(() => recordWrites(uniqueOrganization(), movement, [{ stockRecordId: SOURCE, quantity: 1 }])).toThrow(/not an id of its occurredAt/);
  });

  it('finds nothing for an id of no movement, whether or not it is shaped like one', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const reads = new InventoryReadStore(tableName('inventory'));

    // Act
    const found = await Promise.all(
      [newMovementId('2026-11-22T10:00:00.000Z'), 'mov_missing000000', 'mov_ZZZZZZZZZZZZZZZZZZZZZZZZZZ'].map((id) => reads.movement(organizationId, id)),
    );

    // Assess
    expect(found).toEqual([undefined, undefined, undefined]);
  });
});
