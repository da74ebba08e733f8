import type { EventDraft } from '../../platform/events/types.ts';
import type { Item } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import { newRecordId } from '../../inventory/index.ts';
import { newMovementId, stockRecordKey, sumQuantities } from '../../inventory/index.ts';
import type { ShortLine } from '../../stock/index.ts';
import { StockLedger, type StockWrite } from '../../stock/index.ts';
import { StockState } from '../../stock/index.ts';
import type { ReservationPorts } from './ports.ts';
import type { Reservation, ReservationLine } from './reservation.ts';

/**
 * What a release, a fulfilment or an expiry does to each line it settles, and what a create's
 * slice does to each lot it holds (docs/inventory.md "Reservations and available stock"), on
 * stock read for those lines only: the one-transaction commands and every slice of a larger
 * operation (lib/reservations/domain/slices.ts) apply lines the same way.
 */

export type SettleAction = 'release' | 'fulfil' | 'expire';

/** A ledger over the stock of `lines` as stored now, with their items and locations. */
export async function ledgerFor<Write>(
  ports: ReservationPorts<Write>,
  organizationId: string,
  lines: ReadonlyArray<Pick<ReservationLine, 'itemId' | 'locationId' | 'lot'>>,
) {
  const itemIds = [...new Set(lines.map((line) => line.itemId))];
  const found = await ports.reads.references(organizationId, {
    skus: [],
    itemIds,
    codes: [],
    locationIds: [...new Set(lines.map((line) => line.locationId))],
    claimKeys: [],
  });
  const recordKeys = lines.map((line) => stockRecordKey(line.itemId, line.locationId, line.lot));
  const stock = await ports.reads.stock(organizationId, { recordKeys, itemIds, claimKeys: [] });
  const state = new StockState(ports.stock, organizationId, found.itemsById.values());
  state.know({ stockRecords: recordKeys, itemIds }, stock);
  const ledger = new StockLedger(state, { stockRecord: () => newRecordId('stock-record'), movement: newMovementId });
  const placeOf = (line: Pick<ReservationLine, 'itemId' | 'locationId'>): { item: Item; location: Location } => {
    const item = found.itemsById.get(line.itemId);
    const location = found.locationsById.get(line.locationId);
    // Items and locations are never deleted: a reservation's always exist.
    if (!item || !location) throw new Error(`A reservation names an item or a location that does not exist (${line.itemId} at ${line.locationId})`);
    return { item, location };
  };
  return { ledger, placeOf };
}

export interface Applied {
  lines: ReservationLine[];
  events: EventDraft[];
  /** The ledger's writes: what the lines wrote themselves (a shipment's movement), then the records and totals. */
  writes: StockWrite[];
  /** Lines a fulfilment could not ship (a count set on-hand below what is held); `line` is the index in `lines`. */
  short: ShortLine[];
}

/** Settles each line of `lines` by its amount (absent or 0: left as it is). */
export async function settleLines<Write>(
  ports: ReservationPorts<Write>,
  organizationId: string,
  reservation: Reservation,
  lines: ReservationLine[],
  amounts: ReadonlyMap<string, number>,
  action: SettleAction,
  at: string,
): Promise<Applied> {
  const touched = lines.filter((line) => (amounts.get(line.lineId) ?? 0) > 0);
  const { ledger, placeOf } = await ledgerFor(ports, organizationId, touched);
  const events: EventDraft[] = [];
  const unitWrites: StockWrite[] = [];
  const short: ShortLine[] = [];
  const settled = lines.map((line, index): ReservationLine => {
    const quantity = amounts.get(line.lineId) ?? 0;
    if (quantity <= 0) return line;
    const { item, location } = placeOf(line);
    const side = { location, lot: line.lot };
    ledger.begin();
    if (action === 'fulfil') {
      const moved = ledger.move({
        type: 'shipment',
        item,
        quantity,
        from: side,
        reference: reservation.reference,
        reservationId: reservation.id,
        occurredAt: at,
      });
      if (!moved.ok) {
        ledger.rollback();
        if (moved.reason === 'insufficient-stock')
          short.push({ line: index, stockRecordId: line.stockRecordId, available: moved.available, requested: quantity });
        return line;
      }
    } else {
      ledger.hold({ item, side, quantity: -quantity, reservationId: reservation.id, occurredAt: at });
    }
    const unit = ledger.endUnit();
    unitWrites.push(...unit.writes);
    events.push(...unit.events);
    return action === 'fulfil'
      ? { ...line, fulfilledQuantity: sumQuantities([line.fulfilledQuantity, quantity]) }
      : { ...line, releasedQuantity: sumQuantities([line.releasedQuantity, quantity]) };
  });
  return { lines: settled, events, writes: [...unitWrites, ...ledger.flush()], short };
}

/** Holds each of `lines` (lots named, as a create decided them) for `reservationId`; `short` names the index of each lot now short. */
export async function holdLines<Write>(
  ports: ReservationPorts<Write>,
  organizationId: string,
  reservationId: string,
  lines: ReservationLine[],
  at: string,
): Promise<Applied> {
  const { ledger, placeOf } = await ledgerFor(ports, organizationId, lines);
  const events: EventDraft[] = [];
  const unitWrites: StockWrite[] = [];
  const short: ShortLine[] = [];
  lines.forEach((line, index) => {
    const { item, location } = placeOf(line);
    ledger.begin();
    const held = ledger.hold({ item, side: { location, lot: line.lot }, quantity: line.quantity, reservationId, occurredAt: at });
    if (!held.ok) {
      ledger.rollback();
      short.push({ line: index, stockRecordId: line.stockRecordId, available: held.available, requested: line.quantity });
      return;
    }
    const unit = ledger.endUnit();
    unitWrites.push(...unit.writes);
    events.push(...unit.events);
  });
  return { lines, events, writes: [...unitWrites, ...ledger.flush()], short };
}
