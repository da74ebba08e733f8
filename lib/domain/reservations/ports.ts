import type { StockChangeReads, StockChangeWrite } from '../stock/changes/command.ts';
import type { StockReads } from '../stock/state.ts';
import type { Reservation } from './reservation.ts';

/** What the reservation commands read and write through (lib/store/reservation-ports.ts). */
export interface ReservationPorts<Write> {
  /** Stock as the JSON stock changes read it (two batches), and the ledger's writes in the store's terms. */
  reads: StockChangeReads;
  stock: StockReads & { writesOf(organizationId: string, write: StockChangeWrite): Write[] };
  reservations: ReservationStorage<Write>;
  beforeImages: ReservationBeforeImages<Write>;
  clock?: () => Date;
}

export interface StoredReservation {
  reservation: Reservation;
  version: number;
}

export interface ReservationStorage<Write> {
  get(organizationId: string, id: string): Promise<StoredReservation | undefined>;
  /** The reservation holding `reference`, if any. */
  idOfReference(organizationId: string, reference: string): Promise<string | undefined>;
  /** The reservation and the claim of its reference, put only where absent. */
  createWrites(organizationId: string, reservation: Reservation): Write[];
  /** The reservation over the version read. */
  updateWrite(organizationId: string, reservation: Reservation, expectedVersion: number): Write;
}

/** Where a change stores the reservation as it was (lib/store/reservation-before-images.ts). */
export interface ReservationBeforeImages<Write> {
  /**
   * The reservation as it was before the change at `changedAt` (the new version's `updatedAt`),
   * kept as long as events are: what an exact export rolls a reservation changed after its
   * snapshot back to (docs/exports.md "Snapshots").
   */
  write(organizationId: string, before: Reservation, changedAt: string): Write;
}
