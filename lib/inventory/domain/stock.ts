import { idTime, MAX_ULID_TIME, newId } from '../../platform/core/ids.ts';
import type { TrackingMode } from './item.ts';

/**
 * Stock records and movements. A stock record holds the on-hand quantity of one item at one
 * location in one lot (`lot` null for items not tracked by lot); that triple is its natural key.
 * Movements are an append-only ledger of signed quantity changes to one stock record, and the
 * invariant is: a record's on-hand equals the sum of its movements. Quantities are decimals kept
 * exact to `QUANTITY_SCALE` places (integers of 10^-6 units), so sums never drift.
 */

export interface StockRecord {
  id: string;
  itemId: string;
  /** The item's sku and the location's code: natural keys, never changed, kept so a read needs no other record. */
  sku: string;
  locationId: string;
  locationCode: string;
  lot: string | null;
  onHand: number;
  /**
   * Held by active reservations (docs/inventory.md "Reservations and available stock"); absent on
   * records written before reservations existed, read as 0. `available` = onHand − reserved.
   */
  reserved?: number;
  createdAt: string;
  updatedAt: string;
}

/** An item's on-hand summed over all its stock records; kept in step with them in every transaction. */
export interface ItemStock {
  itemId: string;
  onHand: number;
  /** Held by active reservations across the item's records; absent on totals written before reservations existed (0). */
  reserved?: number;
  /**
   * The item's tracking mode when the total was last written (absent on totals written before it
   * was kept): a stock write conditions on it, so stock decided on the item's old mode never
   * commits after a mode change (docs/inventory.md "The stock model").
   */
  trackingMode?: TrackingMode;
}

/** One item at one location, whatever the lot. */
export interface ItemAtLocation {
  itemId: string;
  locationId: string;
}

/** What a stock record holds for reservations: 0 on records written before they existed. */
export function reservedOf(holder: { reserved?: number }): number {
  return holder.reserved ?? 0;
}

/** On-hand less what reservations hold; negative only after a count set on-hand below it. */
export function availableOf(holder: { onHand: number; reserved?: number }): number {
  return sumQuantities([holder.onHand, -reservedOf(holder)]);
}

export const MOVEMENT_TYPES = ['receipt', 'adjustment', 'transfer', 'count', 'consumption', 'production', 'shipment', 'consumption-reversal'] as const;
export type MovementType = (typeof MOVEMENT_TYPES)[number];

/**
 * One ledger entry: the signed change a movement made to one stock record. A movement touches one
 * stock record, or two for a transfer (one entry per leg, both with the movement's id).
 */
export interface Movement {
  /** The movement's id (`mov_…`), shared by the legs of a transfer. */
  id: string;
  stockRecordId: string;
  /** Signed change of on-hand: positive adds stock, negative removes it. */
  quantity: number;
  type: MovementType;
  /** The business reference of the row that caused it (adjustment reference, PO number, count or build reference). */
  reference: string | null;
  occurredAt: string;
}

/**
 * A movement as a whole, as `movement.created` carries it (with the event's `occurredAt`): what
 * the reads answer (docs/inventory.md "Reading inventory"). `quantity` is positive; the
 * locations give the direction.
 */
export interface MovementRecord {
  id: string;
  type: MovementType;
  itemId: string;
  sku: string;
  fromLocationId: string | null;
  toLocationId: string | null;
  quantity: number;
  lot: string | null;
  reference: string | null;
  occurredAt: string;
}

/** One stock record a movement changes, and by how much (signed): one leg, or two for a transfer. */
export interface MovementLeg {
  stockRecordId: string;
  quantity: number;
}

/**
 * Whether `occurredAt` is a time a movement may carry: ISO 8601 UTC with milliseconds, exactly as
 * `Date.prototype.toISOString` writes it, from 1970 on (a movement's id holds it as a ULID time).
 */
export function isMovementTime(occurredAt: string): boolean {
  const time = Date.parse(occurredAt);
  return time >= 0 && time <= MAX_ULID_TIME && new Date(time).toISOString() === occurredAt;
}

/**
 * A movement's id: a ULID whose time is the movement's `occurredAt`, so the id alone gives the
 * key it is stored under (docs/inventory.md "Reading inventory").
 */
export function newMovementId(occurredAt: string): string {
  if (!isMovementTime(occurredAt)) throw new RangeError(`A movement occurs at an ISO 8601 UTC time in milliseconds from 1970 on, not '${occurredAt}'`);
  return newId('mov', Date.parse(occurredAt));
}

/** The `occurredAt` a movement id made by `newMovementId` carries; undefined for any other id. */
export function movementTimeOf(movementId: string): string | undefined {
  const time = idTime('mov', movementId);
  return time === undefined ? undefined : new Date(time).toISOString();
}

/** Decimal places a quantity keeps. */
export const QUANTITY_SCALE = 6;
const UNITS = 10 ** QUANTITY_SCALE;

/** The natural key of a stock record: one per item × location × lot. */
export function stockRecordKey(itemId: string, locationId: string, lot: string | null): string {
  // Ids never contain '#'; a lot is free text, so it goes last and is never split.
  return `${itemId}#${locationId}#${lot ?? ''}`;
}

/** Sum of decimal quantities without binary floating-point drift. */
export function sumQuantities(quantities: Iterable<number>): number {
  return fromUnits(toUnitsSum(quantities));
}

function toUnitsSum(quantities: Iterable<number>): number {
  let units = 0;
  for (const quantity of quantities) units += Math.round(quantity * UNITS);
  return units;
}

function fromUnits(units: number): number {
  return units / UNITS;
}

/** `quantity × factor`, rounded half up to `QUANTITY_SCALE` places (what a build consumes). */
export function scaleQuantity(quantity: number, factor: number): number {
  // The product is first cut to 12 significant digits, so a binary error (157.49999999999997
  // for 157.5) cannot turn an exact half into a round-down.
  return fromUnits(Math.round(Number((quantity * factor * UNITS).toPrecision(12))));
}

export class NegativeStockError extends Error {
  override name = 'NegativeStockError';
}

/**
 * The stock record after `movement`. A movement never takes on-hand below zero: stock that is
 * not there cannot be consumed or moved.
 */
export function applyMovement(record: StockRecord, movement: Movement): StockRecord {
  if (movement.stockRecordId !== record.id) throw new Error(`Movement ${movement.id} belongs to ${movement.stockRecordId}, not ${record.id}`);
  const onHand = sumQuantities([record.onHand, movement.quantity]);
  if (onHand < 0) throw new NegativeStockError(`Stock record ${record.id} has ${record.onHand} on hand; ${movement.quantity} would take it below zero.`);
  return { ...record, onHand, updatedAt: movement.occurredAt };
}

/** Whether a record's on-hand equals the sum of its movements (the ledger invariant). */
export function onHandMatchesLedger(record: StockRecord, movements: readonly Movement[]): boolean {
  return sumQuantities(movements.filter((movement) => movement.stockRecordId === record.id).map((movement) => movement.quantity)) === record.onHand;
}
