import type { StockChangeReads, StockChangeWrite } from '../../stock/index.ts';
import type { StockReads } from '../../stock/index.ts';
import type { CommandWriter, WriteContext } from '../../platform/write/ports.ts';
import type { PendingKind, PendingOperation } from './pending.ts';
import type { Reservation } from './reservation.ts';

/** What the reservation commands read and write through (lib/reservations/store/reservation-ports.ts). */
export interface ReservationPorts<Write> {
  /** Stock as the JSON stock changes read it (two batches), and the ledger's writes in the store's terms. */
  reads: StockChangeReads;
  stock: StockReads & { writesOf(organizationId: string, write: StockChangeWrite): Write[] };
  reservations: ReservationStorage<Write>;
  beforeImages: ReservationBeforeImages<Write>;
  clock?: () => Date;
}

/** What is stored beside the reservation: the operation in progress, and the requests it remembers having finished. */
export interface ReservationProgress {
  pending?: PendingOperation;
  /** The latest requests that changed it (lib/reservations/domain/pending.ts). */
  requests: RememberedRequest[];
}

/** A request a reservation remembers having finished. */
export interface RememberedRequest {
  /** SHA-256 of its Idempotency-Key. */
  key: string;
  /** When its command ran (at or after its key was claimed): it is remembered as long as the key is. */
  at: string;
}

export interface StoredReservation extends ReservationProgress {
  reservation: Reservation;
  version: number;
}

export interface ReservationStorage<Write> {
  get(organizationId: string, id: string): Promise<StoredReservation | undefined>;
  /** The reservation holding `reference`, if any. */
  idOfReference(organizationId: string, reference: string): Promise<string | undefined>;
  /** The reservation and the claim of its reference, put only where absent. */
  createWrites(organizationId: string, reservation: Reservation, progress: ReservationProgress): Write[];
  /** The reservation over the version read. */
  updateWrite(organizationId: string, reservation: Reservation, expectedVersion: number, progress: ReservationProgress): Write;
  /** A check that the reservation is still at the version read: what a request answers with, when another finished its operation. */
  unchangedWrite(organizationId: string, id: string, expectedVersion: number): Write;
  /** The reservation (over the version read) and the claim of its reference: a create unwound leaves nothing. */
  deleteWrites(organizationId: string, reservation: Reservation, expectedVersion: number): Write[];
}

/** Where a change stores the reservation as it was (lib/reservations/store/reservation-before-images.ts). */
export interface ReservationBeforeImages<Write> {
  /**
   * The reservation as it was before the change at `changedAt` (the new version's `updatedAt`),
   * kept as long as events are: what an exact export rolls a reservation changed after its
   * snapshot back to (docs/exports.md "Snapshots").
   */
  write(organizationId: string, before: Reservation, changedAt: string): Write;
}

/** A fault hook (integration tests): called after each slice that commits with more to come. */
export type SliceHook = (kind: PendingKind, slicesDone: number) => void | Promise<void>;

/**
 * How an operation of several transactions commits all but its last slice (the caller commits
 * that one, with its Idempotency-Key completion): the writer, the request's context without the
 * key, and the key's hash, which the operation stores so that a retry finishes it instead of
 * starting another.
 */
export interface SliceRun<Write> {
  writer: CommandWriter<Write>;
  context: Omit<WriteContext, 'idempotency'>;
  requestKey: string | null;
  afterSlice?: SliceHook;
}
