import { GetCommand } from '@aws-sdk/lib-dynamodb';
import { sweepDueAt, type PendingOperation } from '../domain/pending.ts';
import type { PageOf } from '../../platform/pagination/page.ts';
import type { RememberedRequest, ReservationProgress, ReservationStorage, StoredReservation } from '../domain/ports.ts';
import { ReferenceTakenError, type Reservation, type ReservationStatus } from '../domain/reservation.ts';
import { documentClient } from '../../platform/aws/dynamodb-client.ts';
import { entityItem, readPageInOneQuery, sortKeyRange, type ItemFilter } from '../../platform/dynamo/entity.ts';
import { activeJobShardOf } from '../../platform/dynamo/keys.ts';
import { referenceClaimEntity, RESERVATION_PREFIX, reservationEntity, reservationExpiryShard, reservationsPartitionOf } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Reservations in the inventory table (docs/inventory.md "Reservations and available stock"): one
 * item per reservation in its organization's reservations partition (listed by id, so oldest
 * first), beside one claim per reference, put only where absent in the reservation's own
 * transaction. An active reservation also sits in gsi1 under a shard, sorted by `expiresAt` (or
 * sooner while an operation is in progress on it): the expiry sweep's bounded Query; it leaves
 * the index once nothing is left. Beside the reservation: the operation in progress (`pending`)
 * and the requests it remembers having finished (`requests`: each key hash with its time), never part of the answers.
 */

/**
 * The expiry index keys of an active reservation: its shard, and when the sweep should look at
 * it (its expiry, or sooner while an operation is in progress: lib/reservations/domain/pending.ts)
 * then its identity.
 */
function expiryKeys(
  organizationId: string,
  reservation: Reservation,
  pending: PendingOperation | undefined,
): { gsi1pk: string; gsi1sk: string } | Record<string, never> {
  if (reservation.status !== 'active') return {};
  const identity = `${organizationId}#${reservation.id}`;
  return { gsi1pk: reservationExpiryShard(activeJobShardOf(identity)), gsi1sk: `${sweepDueAt(reservation.expiresAt, pending)}#${identity}` };
}

type Stored = Record<string, unknown>;
/**
 * Reservations stored before operations ran in slices have neither `pending` nor `requests`;
 * requests remembered before they carried a time (a key hash alone) read as remembered at the
 * reservation's last change, at or after each of them: none is forgotten before its key.
 */
const toStored = (item: Stored): StoredReservation => {
  const reservation = item.reservation as Reservation;
  const requests = ((item.requests as Array<string | RememberedRequest> | undefined) ?? []).map((entry) =>
    typeof entry === 'string' ? { key: entry, at: reservation.updatedAt } : entry,
  );
  return { reservation, version: item.version as number, requests, ...(item.pending ? { pending: item.pending as PendingOperation } : {}) };
};

/** How many reservations a filtered list page examines at most (a page may then hold fewer than asked, with `more`). */
const FILTERED_PAGE_BUDGET = 500;

export class ReservationsStore implements ReservationStorage<StoreWrite> {
  constructor(private readonly tableName: string) {}

  async get(organizationId: string, id: string): Promise<StoredReservation | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: reservationEntity.key({ organizationId, id }), ConsistentRead: true }),
    );
    return Item ? toStored(Item) : undefined;
  }

  async idOfReference(organizationId: string, reference: string): Promise<string | undefined> {
    const { Item } = await documentClient.send(
      new GetCommand({ TableName: this.tableName, Key: referenceClaimEntity.key({ organizationId, reference }), ConsistentRead: true }),
    );
    return Item?.reservationId as string | undefined;
  }

  createWrites(organizationId: string, reservation: Reservation, progress: ReservationProgress): StoreWrite[] {
    return [
      {
        item: {
          Put: { TableName: this.tableName, Item: this.item(organizationId, reservation, 1, progress), ConditionExpression: 'attribute_not_exists(pk)' },
        },
      },
      {
        item: {
          Put: {
            TableName: this.tableName,
            Item: entityItem(referenceClaimEntity, { organizationId, reference: reservation.reference }, { organizationId, reservationId: reservation.id }),
            ConditionExpression: 'attribute_not_exists(pk)',
          },
        },
        // Another request took the reference meanwhile.
        onConditionFailed: async () =>
          new ReferenceTakenError(reservation.reference, (await this.idOfReference(organizationId, reservation.reference)) ?? null),
      },
    ];
  }

  updateWrite(organizationId: string, reservation: Reservation, expectedVersion: number, progress: ReservationProgress): StoreWrite {
    return {
      item: {
        Put: {
          TableName: this.tableName,
          Item: this.item(organizationId, reservation, expectedVersion + 1, progress),
          ConditionExpression: 'version = :read',
          ExpressionAttributeValues: { ':read': expectedVersion },
        },
      },
    };
  }

  unchangedWrite(organizationId: string, id: string, expectedVersion: number): StoreWrite {
    return {
      item: {
        ConditionCheck: {
          TableName: this.tableName,
          Key: reservationEntity.key({ organizationId, id }),
          ConditionExpression: 'version = :read',
          ExpressionAttributeValues: { ':read': expectedVersion },
        },
      },
    };
  }

  deleteWrites(organizationId: string, reservation: Reservation, expectedVersion: number): StoreWrite[] {
    return [
      {
        item: {
          Delete: {
            TableName: this.tableName,
            Key: reservationEntity.key({ organizationId, id: reservation.id }),
            ConditionExpression: 'version = :read',
            ExpressionAttributeValues: { ':read': expectedVersion },
          },
        },
      },
      { item: { Delete: { TableName: this.tableName, Key: referenceClaimEntity.key({ organizationId, reference: reservation.reference }) } } },
    ];
  }

  /** A page of the organization's reservations, oldest first; `status`, `itemId` and `reference` filter. */
  async page(
    organizationId: string,
    filter: { status?: ReservationStatus; itemId?: string; reference?: string },
    after: string | undefined,
    limit: number,
  ): Promise<PageOf<Reservation>> {
    const conditions: string[] = [];
    const itemFilter: ItemFilter = { expression: '', names: {}, values: {} };
    if (filter.status !== undefined) {
      conditions.push('#reservation.#status = :status');
      Object.assign(itemFilter.names, { '#reservation': 'reservation', '#status': 'status' });
      itemFilter.values[':status'] = filter.status;
    }
    if (filter.reference !== undefined) {
      conditions.push('#reservation.#reference = :reference');
      Object.assign(itemFilter.names, { '#reservation': 'reservation', '#reference': 'reference' });
      itemFilter.values[':reference'] = filter.reference;
    }
    if (filter.itemId !== undefined) {
      conditions.push('contains(#itemIds, :itemId)');
      itemFilter.names['#itemIds'] = 'itemIds';
      itemFilter.values[':itemId'] = filter.itemId;
    }
    itemFilter.expression = conditions.join(' AND ');
    const page = await readPageInOneQuery({
      tableName: this.tableName,
      partition: { name: 'pk', value: reservationsPartitionOf(organizationId) },
      sortKey: { name: 'sk', ...sortKeyRange(RESERVATION_PREFIX) },
      after,
      limit,
      ...(conditions.length > 0 ? { filter: itemFilter, budget: FILTERED_PAGE_BUDGET } : { budget: limit + 1 }),
    });
    return { items: page.items.map((item) => toStored(item).reservation), last: page.last, more: page.more };
  }

  private item(organizationId: string, reservation: Reservation, version: number, { pending, requests }: ReservationProgress): Stored {
    const itemIds = [...new Set(reservation.lines.map((line) => line.itemId))];
    return entityItem(
      reservationEntity,
      { organizationId, id: reservation.id },
      { organizationId, reservation, itemIds, version, requests, ...(pending ? { pending } : {}), ...expiryKeys(organizationId, reservation, pending) },
    );
  }
}
