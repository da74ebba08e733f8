import { ValidationError, type FieldError } from '../errors.ts';
import type { EventDraft } from '../events/types.ts';
import type { AuditKind } from '../audit/types.ts';
import { newRecordId } from '../inventory/records.ts';
import { newMovementId, stockRecordKey, sumQuantities } from '../inventory/stock.ts';
import type { CommandPlan } from '../write/ports.ts';
import { InsufficientStockError, type ShortLine } from '../stock/changes/errors.ts';
import { StockLedger, type StockWrite } from '../stock/ledger.ts';
import { StockState } from '../stock/state.ts';
import type { ReservationPorts } from './ports.ts';
import { leftOf, NotActiveError, OverQuantityError, reservationNotFound, statusAfter, type OverLine, type Reservation, type ReservationLine } from './reservation.ts';

/**
 * Releasing and fulfilling a reservation (docs/inventory.md "Reservations and available stock"),
 * and its expiry: each named line (or every line, for what it has left) lets go of its quantity
 * (`reserved` down, on-hand as it is) or ships it (a `shipment` movement out of on-hand and
 * reserved together), all lines or none, in one transaction with the reservation written over the
 * version read and its before-image.
 */

export type SettleAction = 'release' | 'fulfil' | 'expire';

export interface SettleLineInput {
  lineId: string;
  quantity: number;
}

const AUDIT: Record<SettleAction, AuditKind> = { release: 'reservation.released', fulfil: 'reservation.fulfilled', expire: 'reservation.expired' };
const PAST: Record<SettleAction, string> = { release: 'released', fulfil: 'fulfilled', expire: 'expired' };

export class SettleReservationCommand<Write> {
  constructor(private readonly ports: ReservationPorts<Write>) {}

  /** `lines` undefined: everything every line has left. */
  async settle(organizationId: string, id: string, action: SettleAction, lines: SettleLineInput[] | undefined): Promise<CommandPlan<Reservation, Write>> {
    const { ports } = this;
    const stored = await ports.reservations.get(organizationId, id);
    if (!stored) throw reservationNotFound();
    const { reservation, version } = stored;
    if (reservation.status !== 'active') throw new NotActiveError(reservation);
    const amounts = amountsOf(reservation, lines);

    const touched = reservation.lines.filter((line) => (amounts.get(line.lineId) ?? 0) > 0);
    const found = await ports.reads.references(organizationId, { skus: [], itemIds: touched.map((line) => line.itemId), codes: [], locationIds: touched.map((line) => line.locationId), claimKeys: [] });
    const recordKeys = touched.map((line) => stockRecordKey(line.itemId, line.locationId, line.lot));
    const itemIds = touched.map((line) => line.itemId);
    const stock = await ports.reads.stock(organizationId, { recordKeys, itemIds, claimKeys: [] });
    const state = new StockState(ports.stock, organizationId, found.itemsById.values());
    state.know({ stockRecords: recordKeys, itemIds }, stock);

    const at = changeTime(reservation, ports.clock?.() ?? new Date());
    const ledger = new StockLedger(state, { stockRecord: () => newRecordId('stock-record'), movement: newMovementId });
    const events: EventDraft[] = [];
    /** What the lines wrote themselves (a shipment's movement); the ledger's flush adds the records and totals. */
    const unitWrites: StockWrite[] = [];
    const short: ShortLine[] = [];
    const settled = reservation.lines.map((line, index): ReservationLine => {
      const quantity = amounts.get(line.lineId) ?? 0;
      if (quantity <= 0) return line;
      const item = found.itemsById.get(line.itemId);
      const location = found.locationsById.get(line.locationId);
      // Items and locations are never deleted: a reservation's always exist.
      if (!item || !location) throw new Error(`Reservation ${id} names an item or a location that does not exist`);
      const side = { location, lot: line.lot };
      ledger.begin();
      if (action === 'fulfil') {
        const moved = ledger.move({ type: 'shipment', item, quantity, from: side, reference: reservation.reference, reservationId: id, occurredAt: at });
        if (!moved.ok) {
          ledger.rollback();
          if (moved.reason === 'insufficient-stock') short.push({ line: index, stockRecordId: line.stockRecordId, available: moved.available, requested: quantity });
          return line;
        }
      } else {
        ledger.hold({ item, side, quantity: -quantity, reservationId: id, occurredAt: at });
      }
      const unit = ledger.endUnit();
      unitWrites.push(...unit.writes);
      events.push(...unit.events);
      return action === 'fulfil' ? { ...line, fulfilledQuantity: sumQuantities([line.fulfilledQuantity, quantity]) } : { ...line, releasedQuantity: sumQuantities([line.releasedQuantity, quantity]) };
    });
    // A count set on-hand below what the reservation holds: it cannot ship more than is there.
    if (short.length > 0) throw new InsufficientStockError(short);

    const next: Reservation = { ...reservation, lines: settled, status: statusAfter(settled, action), updatedAt: at };
    const writes = [
      ...[...unitWrites, ...ledger.flush()].flatMap((write) => ports.stock.writesOf(organizationId, write)),
      ports.reservations.updateWrite(organizationId, next, version),
      ports.beforeImages.write(organizationId, reservation, at),
    ];
    return {
      writes,
      events,
      audit: { kind: AUDIT[action], target: { kind: 'reservation', id }, summary: `Reservation ${PAST[action]}: ${reservation.reference}`, changes: [] },
      result: next,
    };
  }
}

/**
 * When a change of the reservation happens: now, but always after its last change, so each
 * version of a reservation has its own `updatedAt` (its events' `occurredAt`, and the key of the
 * before-image an exact export reads: docs/exports.md "Snapshots"), whatever the clocks of the
 * writers.
 */
export function changeTime(reservation: Pick<Reservation, 'updatedAt'>, now: Date): string {
  return new Date(Math.max(now.getTime(), Date.parse(reservation.updatedAt) + 1)).toISOString();
}

/** How much of each line to settle: as asked, or all that is left; unknown lines are a 400, more than is left a 409. */
function amountsOf(reservation: Reservation, lines: SettleLineInput[] | undefined): Map<string, number> {
  if (lines === undefined) return new Map(reservation.lines.map((line) => [line.lineId, leftOf(line)]));
  const byId = new Map(reservation.lines.map((line) => [line.lineId, line]));
  const errors: FieldError[] = [];
  const over: OverLine[] = [];
  const amounts = new Map<string, number>();
  lines.forEach((asked, index) => {
    const line = byId.get(asked.lineId);
    if (!line) {
      errors.push({ location: 'body', pointer: `/lines/${index}/lineId`, code: 'unknown-line', message: `The reservation has no line '${asked.lineId}'.` });
      return;
    }
    const total = sumQuantities([amounts.get(asked.lineId) ?? 0, asked.quantity]);
    amounts.set(asked.lineId, total);
    if (total > leftOf(line)) over.push({ lineId: asked.lineId, requested: total, left: leftOf(line) });
  });
  if (errors.length > 0) throw new ValidationError(errors, 'Lines name lines the reservation does not have; see `errors`.');
  if (over.length > 0) throw new OverQuantityError(over);
  return amounts;
}
