import { GetCommand, type NativeAttributeValue } from '@aws-sdk/lib-dynamodb';
import { movementTimeOf, type Movement, type MovementLeg, type MovementRecord } from '../domain/stock.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem, readAll, sortKeyRange, type Key } from '../../platform/dynamo/entity.ts';
import { LEDGER_PREFIX, ledgerOf, ledgerSortKey, legacyMovementRecordEntity, movementEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Movements in the inventory table (docs/inventory.md "The stock model"): each one ONE item, in
 * the organization's movement list under `AT#<occurredAt>#<id>`, holding the movement as the
 * list and `GET /v1/movements/{id}` answer it (`record`), the list's filter attributes, and its
 * legs; its stock records' ledgers read it through gsi1 (first leg) and gsi2 (a transfer's
 * second). A movement id is a ULID of its `occurredAt`, so the id alone gives the key.
 *
 * Older code stored a movement as three or four items: the movement under its id (sk `RECORD`),
 * a copy in the list (under the same sort key, with the same `record` and filter attributes, so
 * lists read both alike) and one item per leg in gsi1. Those stay readable, by id and in ledgers.
 */

type StoredItem = Record<string, NativeAttributeValue>;

/** The ledger's index keys of a movement's legs, in leg order. */
const LEDGER_INDEXES = [
  { indexName: 'gsi1', partitionKey: 'gsi1pk', sortKey: 'gsi1sk' },
  { indexName: 'gsi2', partitionKey: 'gsi2pk', sortKey: 'gsi2sk' },
] as const;

/** The put of a movement with its legs (never changed afterwards): ONE action. */
export function movementWrite(tableName: string, organizationId: string, movement: MovementRecord, legs: readonly MovementLeg[]): StoreWrite {
  if (legs.length < 1 || legs.length > LEDGER_INDEXES.length) throw new Error(`A movement has one or two legs, not ${legs.length}`);
  // Stored under a key its id does not give, it could never be read by id.
  if (movementTimeOf(movement.id) !== movement.occurredAt)
    throw new Error(`Movement ${movement.id} is not an id of its occurredAt ${movement.occurredAt} (newMovementId)`);
  const identity = { organizationId, id: movement.id, occurredAt: movement.occurredAt, stockRecordIds: legs.map((leg) => leg.stockRecordId) };
  const locationIds = [movement.fromLocationId, movement.toLocationId].filter((id): id is string => id !== null);
  const item = entityItem(movementEntity, identity, {
    organizationId,
    id: movement.id,
    record: movement,
    legs: legs.map(({ stockRecordId, quantity }) => ({ stockRecordId, quantity })),
    // What the list's filters read (lib/inventory/store/inventory-reads.ts `movements`).
    itemId: movement.itemId,
    locationIds,
    movementType: movement.type,
  });
  return { item: { Put: { TableName: tableName, Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } };
}

/**
 * A movement by id: one GetItem of the key its id gives. A miss, and an id not made from its
 * time, falls back to where older code stored it, so an unknown id costs 2 GetItems.
 */
export async function movementById(tableName: string, organizationId: string, id: string): Promise<MovementRecord | undefined> {
  const occurredAt = movementTimeOf(id);
  if (occurredAt !== undefined) {
    const stored = await getItem(tableName, movementEntity.key({ organizationId, id, occurredAt }));
    // The item there is the movement, or an older copy of it in the list: both hold `record`.
    if (stored) return stored.record as MovementRecord;
  }
  const legacy = await getItem(tableName, legacyMovementRecordEntity.key({ organizationId, id }));
  return legacy?.movement as MovementRecord | undefined;
}

/** A stock record's movements, oldest first: gsi1 and gsi2, where a movement names it in a leg. */
export async function movementsOf(tableName: string, organizationId: string, stockRecordId: string): Promise<Movement[]> {
  const partition = ledgerOf(organizationId, stockRecordId);
  const found = await Promise.all(
    LEDGER_INDEXES.map((index) =>
      readAll({
        tableName,
        indexName: index.indexName,
        partition: { name: index.partitionKey, value: partition },
        sortKey: { name: index.sortKey, ...sortKeyRange(LEDGER_PREFIX) },
      }),
    ),
  );
  const ledger = new Map<string, Movement>();
  for (const item of found.flat()) {
    const entry = ledgerEntryOf(item, stockRecordId);
    if (entry && !ledger.has(entry.id)) ledger.set(entry.id, entry);
  }
  // Both indexes sort by the same ledger sort key: merged, oldest first.
  const sorted = [...ledger.values()].map((entry) => ({ entry, sortKey: ledgerSortKey(entry.occurredAt, entry.id) }));
  sorted.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  return sorted.map(({ entry }) => entry);
}

/** The ledger entry an item gives the stock record: a movement's leg, or an older leg item itself. */
function ledgerEntryOf(item: StoredItem, stockRecordId: string): Movement | undefined {
  if (!Array.isArray(item.legs)) return item.movement as Movement;
  const movement = item.record as MovementRecord;
  const leg = (item.legs as MovementLeg[]).find((candidate) => candidate.stockRecordId === stockRecordId);
  if (!leg) return undefined;
  return { id: movement.id, stockRecordId, quantity: leg.quantity, type: movement.type, reference: movement.reference, occurredAt: movement.occurredAt };
}

async function getItem(tableName: string, key: Key): Promise<StoredItem | undefined> {
  const { Item: stored } = await documentClient.send(new GetCommand({ TableName: tableName, Key: key, ConsistentRead: true }));
  return stored;
}
