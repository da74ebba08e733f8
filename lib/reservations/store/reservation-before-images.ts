import type { ReservationBeforeImages } from '../domain/ports.ts';
import type { Reservation } from '../domain/reservation.ts';
import { EVENT_RETENTION_DAYS } from '../../platform/events/types.ts';
import { batchGet, entityItem } from '../../platform/dynamo/entity.ts';
import { beforeImageEntity } from './entities.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * Before-images of reservations (docs/exports.md "Snapshots"): each release, fulfilment and
 * expiry stores the reservation as it was, in the reservations partition, keyed by the
 * reservation and the time of the change (the new version's `updatedAt`, its own for each version
 * of one reservation). An exact `reservations` export reads the one of a reservation's first
 * change after its snapshot. They expire with the events (an export cannot roll back further
 * than the feed it reads). Apart from ReservationsStore, so the reads of reservations bundle none
 * of it.
 */

const ttlOf = (changedAt: string) => Math.floor(Date.parse(changedAt) / 1000) + EVENT_RETENTION_DAYS * 24 * 3600;

export class ReservationBeforeImagesStore implements ReservationBeforeImages<StoreWrite> {
  constructor(private readonly tableName: string) {}

  write(organizationId: string, before: Reservation, changedAt: string): StoreWrite {
    const item = entityItem(
      beforeImageEntity,
      { organizationId, reservationId: before.id, changedAt },
      { reservation: before, changedAt, ttl: ttlOf(changedAt) },
    );
    // Only this change writes its key (updatedAt is strictly increasing per reservation, and the
    // change is conditioned on the version it read), so a plain put never replaces another's.
    return { item: { Put: { TableName: this.tableName, Item: item } } };
  }

  /** The before-images of these changes, by reservation id; absent when none is stored (lib/exports/domain/reservation-rows.ts). */
  async read(organizationId: string, changes: ReadonlyArray<{ reservationId: string; changedAt: string }>): Promise<Map<string, Reservation>> {
    const found = await batchGet(
      this.tableName,
      changes.map(({ reservationId, changedAt }) => beforeImageEntity.key({ organizationId, reservationId, changedAt })),
    );
    return new Map(found.map((item) => [(item.reservation as Reservation).id, item.reservation as Reservation]));
  }
}
