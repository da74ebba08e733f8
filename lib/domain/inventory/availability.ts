import type { ItemStock } from '../stock/records.ts';
import { availableOf, reservedOf } from './stock.ts';

/**
 * The three quantity states of stock (docs/inventory.md "Reading inventory"): `onHand` (what is
 * there; a stock record's `quantity` is its alias), `reserved` (held by active reservations, 0
 * until reservations are written) and `available` (= onHand − reserved; negative only after a
 * count set on-hand below what is reserved). The reads map stored records and totals to these.
 */

export interface QuantityStates {
  onHand: number;
  reserved: number;
  available: number;
}

/** A holder's states: a stock record, an item total, or a sum of them; absent `reserved` is 0. */
export function quantityStates(holder: { onHand: number; reserved?: number }): QuantityStates {
  return { onHand: holder.onHand, reserved: reservedOf(holder), available: availableOf(holder) };
}

/** An item's totals across locations: its stored total, or all 0 when it never held stock (no total yet). */
export function itemTotals(stock: ItemStock | undefined): QuantityStates {
  return quantityStates(stock ?? { onHand: 0 });
}
