import type { PageOf } from '../../platform/pagination/page.ts';
import { leftOf, type Reservation } from '../../reservations/index.ts';
import type { ExportRow } from './format.ts';
import type { SnapshotRollback } from './snapshot.ts';

/**
 * The `reservations` export kind (docs/exports.md "Kinds"): one row per reservation line, each
 * reservation as it was at the snapshot S. A reservation read after a change committed after S
 * is rolled back to the before-image that change stored (each release, fulfilment and expiry
 * stores the reservation as it was, keyed by the new version's `updatedAt`); the first change
 * after S is found in the events (lib/exports/domain/snapshot.ts), and a reservation whose first
 * change after S is its creation is left out.
 */

export interface ReservationExports {
  /** The organization's reservations as stored now, oldest first, from a position on. */
  page(organizationId: string, after: string | undefined, limit: number): Promise<PageOf<Reservation>>;
  /**
   * Each reservation as it was before its change at `changedAt` (the before-image that change
   * stored), by reservation id; one without a stored before-image is absent.
   */
  before(organizationId: string, changes: ReadonlyArray<{ reservationId: string; changedAt: string }>): Promise<Map<string, Reservation>>;
}

/** What rows a reservation export keeps: filters applied to each reservation and line at S. */
export interface ReservationRowFilter {
  status?: string;
  reference?: string;
  itemId?: string;
  locationId?: string;
}

/** One row per line of the reservation, in the kind's columns. */
export function reservationRows(reservation: Reservation): ExportRow[] {
  const { id, reference, status, expiresAt, createdAt, updatedAt } = reservation;
  return reservation.lines.map((line) => ({
    reservationId: id,
    reference,
    status,
    expiresAt,
    createdAt,
    updatedAt,
    lineId: line.lineId,
    itemId: line.itemId,
    sku: line.sku,
    locationId: line.locationId,
    locationCode: line.locationCode,
    lot: line.lot,
    stockRecordId: line.stockRecordId,
    quantity: line.quantity,
    fulfilledQuantity: line.fulfilledQuantity,
    releasedQuantity: line.releasedQuantity,
    left: leftOf(line),
  }));
}

/** The rows of reservations (as of S) the filter keeps, in order. */
export function filteredReservationRows(reservations: readonly Reservation[], filter: ReservationRowFilter): ExportRow[] {
  return reservations
    .filter(
      (reservation) =>
        (filter.status === undefined || reservation.status === filter.status) && (filter.reference === undefined || reservation.reference === filter.reference),
    )
    .flatMap((reservation) =>
      reservationRows({
        ...reservation,
        lines: reservation.lines.filter(
          (line) =>
            (filter.itemId === undefined || line.itemId === filter.itemId) && (filter.locationId === undefined || line.locationId === filter.locationId),
        ),
      }),
    );
}

/**
 * The page's reservations as they were at S, in order: unchanged since S as read; created after S
 * left out; changed after S replaced by the before-image of their first change after S. Call it
 * after `rollback.catchUp()`, which must follow the page's read.
 */
export async function reservationsAtSnapshot(
  ports: Pick<ReservationExports, 'before'>,
  organizationId: string,
  rollback: SnapshotRollback,
  reservations: readonly Reservation[],
): Promise<Reservation[]> {
  const changes = reservations.flatMap((reservation) => {
    const changedAt = rollback.reservationChangedAt(reservation.id);
    return changedAt === undefined || changedAt === reservation.createdAt ? [] : [{ reservationId: reservation.id, changedAt }];
  });
  const before = changes.length === 0 ? new Map<string, Reservation>() : await ports.before(organizationId, changes);
  return reservations.flatMap((reservation) => {
    const changedAt = rollback.reservationChangedAt(reservation.id);
    if (changedAt === undefined) return [reservation];
    if (changedAt === reservation.createdAt) return [];
    // Only for the rollout: a change committed before changes stored their before-images is written as read.
    return [before.get(reservation.id) ?? reservation];
  });
}
