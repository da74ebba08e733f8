import { describe, expect, it } from 'vitest';
import { sweepExpiredReservations, type DueReservation } from '../../lib/reservations/domain/expiry-sweep.ts';
import { ReserveCommand, type ReservationInput } from '../../lib/reservations/domain/reserve.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { SettleReservationCommand } from '../../lib/reservations/domain/settle.ts';
import { ReservationExpiryStore } from '../../lib/reservations/store/reservation-expiry-store.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { uniqueOrganization } from '../support/api.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { feedOf, inventoryRecords } from '../support/imports.ts';
import { A1, B1, GADGET, WIDGET } from '../support/stock-world.ts';

/**
 * The reservation expiry sweep on the local stack (docs/inventory.md "Reservations and available
 * stock"): a due reservation releases what it has left and becomes expired, in one transaction
 * with its events; one not due stays; one settled meanwhile is left as it is (nothing released
 * twice); a sweep that fails half way leaves the rest due, and the next one finishes.
 */

const ACTOR = { type: 'system' as const, id: 'reservation-expiry-tests' };
const STORED_AT = '2026-11-01T08:00:00.000Z';
const DAY = 24 * 60 * 60 * 1000;

async function commit(organizationId: string, writes: StoreWrite[]): Promise<void> {
  await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, async () => ({ writes, events: [], result: undefined }));
}

/** WIDGET and GADGET with 10 on hand at A1 and B1. */
async function stocked(): Promise<string> {
  const organizationId = uniqueOrganization();
  const store = inventoryRecords();
  const stock = new StockStore(tableName('inventory'));
  const record = (item: typeof WIDGET, location: typeof A1) => ({
    id: `stk_${item.sku}_${location.code}_${organizationId.slice(-8)}`,
    itemId: item.id,
    sku: item.sku,
    locationId: location.id,
    locationCode: location.code,
    lot: null,
    onHand: 10,
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
  });
  await commit(organizationId, [
    ...store.createWrites(organizationId, 'item', WIDGET),
    ...store.createWrites(organizationId, 'item', GADGET),
    ...store.createWrites(organizationId, 'location', A1),
    ...store.createWrites(organizationId, 'location', B1),
    ...store.createWrites(organizationId, 'stock-record', record(WIDGET, A1)),
    ...store.createWrites(organizationId, 'stock-record', record(GADGET, B1)),
    stock.itemStockWrite(organizationId, { itemId: WIDGET.id, onHand: 10, trackingMode: 'none' }, null, 'none'),
    stock.itemStockWrite(organizationId, { itemId: GADGET.id, onHand: 10, trackingMode: 'none' }, null, 'none'),
  ]);
  return organizationId;
}

/** A reservation created as of `createdAt` (the command's clock), so its expiresAt may already be past. */
async function reserve(organizationId: string, input: ReservationInput, createdAt: Date): Promise<Reservation> {
  const command = new ReserveCommand({ ...reservationPorts(tableName('inventory')), clock: () => createdAt });
  return (await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, () => command.create(organizationId, input))).result;
}

const expiries = () => new ReservationExpiryStore(tableName('inventory'));
const ports = () => reservationPorts(tableName('inventory'));

/** The sweep as the worker runs it, limited to `organizationId` so other tests' reservations are not swept; `failFirst` fails the first expiry. */
async function sweep(organizationId: string, options: { failFirst?: boolean } = {}) {
  const command = new SettleReservationCommand(ports());
  let failures = options.failFirst ? 1 : 0;
  const errors: unknown[] = [];
  const counts = await sweepExpiredReservations({
    due: async (now, limit) => (await expiries().due(now, limit)).filter((entry) => entry.organizationId === organizationId),
    expire: async (entry: DueReservation) => {
      if (failures > 0) {
        failures -= 1;
        throw new Error('the invocation died');
      }
      await transactionWriter().run({ organizationId: entry.organizationId, actor: ACTOR, traceId: null }, () =>
        command.settle(entry.organizationId, entry.id, 'expire', undefined),
      );
    },
    onError: (_entry, error) => errors.push(error),
  });
  return { ...counts, errorsSeen: errors.length };
}

const lines = [
  { sku: 'WIDGET', locationCode: 'A1', lot: null, quantity: 4 },
  { sku: 'GADGET', locationCode: 'B1', lot: null, quantity: 2 },
];

describe('the reservation expiry sweep', () => {
  it('releases what a due reservation has left and marks it expired, with stock.changed per line; a second sweep finds nothing', async () => {
    // Prepare: one due (created two days ago, expired a day ago), one not due
    const organizationId = await stocked();
    const due = await reserve(organizationId, { reference: 'DUE', expiresAt: new Date(Date.now() - DAY).toISOString(), lines }, new Date(Date.now() - 2 * DAY));
    const later = await reserve(
      organizationId,
      { reference: 'LATER', expiresAt: null, lines: [{ sku: 'WIDGET', locationCode: 'A1', lot: null, quantity: 1 }] },
      new Date(),
    );

    // Act
    const first = await sweep(organizationId);
    const second = await sweep(organizationId);

    // Assess
    expect(first).toMatchObject({ expired: 1, skipped: 0, errors: 0 });
    expect(second).toMatchObject({ expired: 0, skipped: 0, errors: 0 });
    const expired = (await ports().reservations.get(organizationId, due.id))?.reservation;
    expect(expired).toMatchObject({ status: 'expired', lines: [{ releasedQuantity: 4 }, { releasedQuantity: 2 }] });
    expect((await ports().reservations.get(organizationId, later.id))?.reservation.status).toBe('active');
    const changes = (await feedOf(organizationId)).filter((event) => event.type === 'stock.changed' && event.data.reservationId === due.id);
    expect(changes.map((event) => [event.data.sku, event.data.delta, event.data.previousReserved, event.data.reserved])).toEqual([
      ['WIDGET', 0, 0, 4],
      ['GADGET', 0, 0, 2],
      // The expiry: WIDGET still holds LATER's 1.
      ['WIDGET', 0, 5, 1],
      ['GADGET', 0, 2, 0],
    ]);
  });

  it('leaves a reservation released meanwhile as it is: nothing is released twice', async () => {
    // Prepare: due, then released by a client before the sweep's transaction
    const organizationId = await stocked();
    const due = await reserve(
      organizationId,
      { reference: 'RACE', expiresAt: new Date(Date.now() - DAY).toISOString(), lines },
      new Date(Date.now() - 2 * DAY),
    );
    const listed = (await expiries().due(new Date(), 100)).filter((entry) => entry.organizationId === organizationId);
    await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, () =>
      new SettleReservationCommand(ports()).settle(organizationId, due.id, 'release', undefined),
    );
    const command = new SettleReservationCommand(ports());

    // Act: the sweep works on what it listed before the release
    const counts = await sweepExpiredReservations({
      due: async () => listed,
      expire: async (entry) => {
        await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, () =>
          command.settle(entry.organizationId, entry.id, 'expire', undefined),
        );
      },
      onError: () => undefined,
    });

    // Assess
    expect(listed.map((entry) => entry.id)).toEqual([due.id]);
    expect(counts).toEqual({ expired: 0, finished: 0, skipped: 1, errors: 0 });
    expect((await ports().reservations.get(organizationId, due.id))?.reservation).toMatchObject({
      status: 'released',
      lines: [{ releasedQuantity: 4 }, { releasedQuantity: 2 }],
    });
    const releases = (await feedOf(organizationId)).filter(
      (event) =>
        event.type === 'stock.changed' && event.data.reservationId === due.id && (event.data.reserved as number) < (event.data.previousReserved as number),
    );
    expect(releases).toHaveLength(2);
  });

  it('leaves what a failed expiry did not do due, and the next sweep finishes it', async () => {
    // Prepare
    const organizationId = await stocked();
    const first = await reserve(
      organizationId,
      { reference: 'ONE', expiresAt: new Date(Date.now() - DAY).toISOString(), lines: [lines[0] as ReservationInput['lines'][number]] },
      new Date(Date.now() - 2 * DAY),
    );
    const second = await reserve(
      organizationId,
      { reference: 'TWO', expiresAt: new Date(Date.now() - DAY).toISOString(), lines: [lines[1] as ReservationInput['lines'][number]] },
      new Date(Date.now() - 2 * DAY),
    );

    // Act
    const failing = await sweep(organizationId, { failFirst: true });
    const next = await sweep(organizationId);

    // Assess
    expect(failing).toMatchObject({ expired: 1, errors: 1, errorsSeen: 1 });
    expect(next).toMatchObject({ expired: 1, errors: 0 });
    for (const reservation of [first, second]) expect((await ports().reservations.get(organizationId, reservation.id))?.reservation.status).toBe('expired');
  });
});
