import type { Item, TrackingMode } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import type { VersionedRecord } from '../../inventory/index.ts';
import type { MovementLeg, MovementRecord, MovementType, StockRecord } from '../../inventory/index.ts';
import type { ItemStock, StockDocument } from './records.ts';

/**
 * What the stock ledger (ledger.ts) reads, takes and gives: the stored state it starts from, the
 * writes it coalesces for a chunk, a movement asked for and its result (docs/inventory.md "The
 * stock model").
 */

/** The stored state a ledger starts from, as read (undefined: no such record yet). */
export interface StockBase {
  stockRecord(naturalKey: string): VersionedRecord<StockRecord> | undefined;
  itemStock(itemId: string): VersionedRecord<ItemStock> | undefined;
  document(key: string): VersionedRecord<StockDocument> | undefined;
  /**
   * The lots of the item's stored stock records at the location, the record that first received
   * stock first; undefined when they are not read yet (StockState reads them and the unit is
   * decided again).
   */
  lotsAt(itemId: string, locationId: string): readonly string[] | undefined;
}

/** A write of the stock a chunk changed, coalesced per record. */
export type StockWrite =
  | { op: 'create'; entity: 'stock-record'; record: StockRecord }
  /**
   * `previousOnHand`: as read; a lot record that comes to hold stock takes one more action
   * (lib/inventory/store/stocked-lots.ts). Absent: not known, and that action is taken whenever it holds stock.
   */
  | { op: 'update'; entity: 'stock-record'; record: StockRecord; expectedVersion: number; previousOnHand?: number }
  /** A movement as a whole with its legs: one stored item, whatever its legs (docs/inventory.md "The stock model"). */
  | { op: 'record-movement'; movement: MovementRecord; legs: MovementLeg[] }
  /** The item total over `expectedVersion`, written only while its stored tracking mode is still `trackingModeRead` (or not kept yet). */
  | { op: 'put-item-stock'; itemStock: ItemStock; expectedVersion: number | null; trackingModeRead: TrackingMode }
  | { op: 'put-document'; document: StockDocument; expectedVersion: number | null }
  /** A stock record a decision read and the chunk does not write: still at `expectedVersion` (null: still absent). */
  | { op: 'check-stock-record'; record: StockRecord; expectedVersion: number | null }
  /** An item total a decision read and the chunk does not write: still at `expectedVersion` (null: still absent). */
  | { op: 'check-item-stock'; itemId: string; expectedVersion: number | null }
  /** A BOM a build was decided on: still at `expectedVersion` (same revision, not archived since). */
  | { op: 'check-bom'; bomId: string; expectedVersion: number };

export interface StockSide {
  location: Location;
  lot: string | null;
}

export interface MoveInput {
  type: MovementType;
  item: Item;
  /** Greater than 0; the direction is given by `from` and `to`. */
  quantity: number;
  from?: StockSide;
  to?: StockSide;
  reference: string | null;
  /** The adjustment's reason, carried by `stock.changed`. */
  reason?: string | null;
  /** A shipment fulfilling this reservation: its `from` leg takes the quantity out of `reserved` too. */
  reservationId?: string;
  /** ISO 8601 UTC in milliseconds, from 1970 on (`isMovementTime`): the movement's id carries it. */
  occurredAt: string;
}

export type MoveResult =
  | { ok: true; movementId: string; from?: StockRecord; to?: StockRecord }
  | { ok: false; reason: 'insufficient-stock'; available: number }
  /** The destination's on-hand or the item's total would pass MAX_ON_HAND. */
  | { ok: false; reason: 'over-limit'; limit: number }
  /** Stock in at an archived item or location (docs/inventory.md "Writing the catalog"). */
  | { ok: false; reason: 'archived'; what: 'item' | 'location'; name: string };

export interface LedgerIds {
  stockRecord(): string;
  /** A new movement's id, made from its `occurredAt` (`newMovementId`). */
  movement(occurredAt: string): string;
}
