import { describe, expect, it } from 'vitest';
import type { StoredEvent } from '../../../lib/events/domain/read-feed.ts';
import { encodeRows, fileHeader } from '../../../lib/exports/domain/format.ts';
import { exportKind } from '../../../lib/exports/domain/kinds.ts';
import { filteredReservationRows, reservationRows, reservationsAtSnapshot } from '../../../lib/exports/domain/reservation-rows.ts';
import { SnapshotRollback } from '../../../lib/exports/domain/snapshot.ts';
import { validateFilters } from '../../../lib/exports/domain/submit.ts';
import type { Reservation, ReservationLine } from '../../../lib/reservations/domain/reservation.ts';
import { changeTime } from '../../../lib/reservations/domain/settle.ts';

/** The `reservations` export kind (docs/exports.md "Kinds", "Snapshots") on plain values: its rows, filters and roll-back to S. */

const kind = exportKind('reservations')!;

const line = (lineId: string, overrides: Partial<ReservationLine> = {}): ReservationLine => ({
  lineId,
  itemId: 'itm_a',
  sku: 'A',
  locationId: 'loc_a',
  locationCode: 'BIN-1',
  lot: null,
  stockRecordId: `stk_${lineId}`,
  quantity: 5,
  fulfilledQuantity: 0,
  releasedQuantity: 0,
  ...overrides,
});

const reservation = (id: string, overrides: Partial<Reservation> = {}): Reservation => ({
  id,
  reference: `REF-${id}`,
  status: 'active',
  expiresAt: '2026-12-02T00:00:00.000Z',
  createdAt: '2026-12-01T00:00:00.000Z',
  updatedAt: '2026-12-01T00:00:00.000Z',
  lines: [line(`rsl_${id}`)],
  ...overrides,
});

/** An event log of `stock.changed` events with a reservationId at an occurredAt (sequences from 1). */
function feed(...changes: Array<[reservationId: string | null, occurredAt: string]>) {
  const stored = changes.map(
    ([reservationId, occurredAt], index) =>
      ({
        sequence: index + 1,
        committedAt: occurredAt,
        envelope: {
          id: `evt_${index + 1}`,
          type: 'stock.changed',
          version: 1,
          occurredAt,
          organizationId: 'o',
          data: { stockRecordId: 'stk_x', previousQuantity: 1, previousUpdatedAt: 'x', quantity: 1, reservationId },
        },
      }) as unknown as StoredEvent,
  );
  return {
    lastSequence: async () => stored.length,
    readFrom: async (_org: string, from: number, max: number) => stored.filter((event) => event.sequence >= from).slice(0, max),
  };
}

describe('reservationRows', () => {
  it('writes one row per line in the declared columns, left = quantity − fulfilled − released', () => {
    // Prepare
    const partly = reservation('res_1', {
      reference: '=ORDER',
      updatedAt: '2026-12-01T00:00:01.000Z',
      lines: [line('rsl_a', { lot: 'L1', quantity: 3, fulfilledQuantity: 1, releasedQuantity: 0.5 }), line('rsl_b', { itemId: 'itm_b', sku: 'B' })],
    });

    // Act
    const rows = reservationRows(partly);

    // Assess
    expect(rows.map((row) => Object.keys(row))).toEqual([kind.columns.map((column) => column.name), kind.columns.map((column) => column.name)]);
    expect(rows[0]).toEqual({
      reservationId: 'res_1',
      reference: '=ORDER',
      status: 'active',
      expiresAt: '2026-12-02T00:00:00.000Z',
      createdAt: '2026-12-01T00:00:00.000Z',
      updatedAt: '2026-12-01T00:00:01.000Z',
      lineId: 'rsl_a',
      itemId: 'itm_a',
      sku: 'A',
      locationId: 'loc_a',
      locationCode: 'BIN-1',
      lot: 'L1',
      stockRecordId: 'stk_rsl_a',
      quantity: 3,
      fulfilledQuantity: 1,
      releasedQuantity: 0.5,
      left: 1.5,
    });
    expect(rows[1]).toMatchObject({ lineId: 'rsl_b', sku: 'B', lot: null, left: 5 });
    // The writer's CSV rules hold as for every kind: numbers as numbers, a hostile reference escaped, no lot an empty cell.
    expect(fileHeader('csv', kind.columns) + encodeRows('csv', kind.columns, rows.slice(0, 1))).toBe(
      'reservationId,reference,status,expiresAt,createdAt,updatedAt,lineId,itemId,sku,locationId,locationCode,lot,stockRecordId,quantity,fulfilledQuantity,releasedQuantity,left\r\n' +
        "res_1,'=ORDER,active,2026-12-02T00:00:00.000Z,2026-12-01T00:00:00.000Z,2026-12-01T00:00:01.000Z,rsl_a,itm_a,A,loc_a,BIN-1,L1,stk_rsl_a,3,1,0.5,1.5\r\n",
    );
  });

  it('keeps the reservations of the status and reference asked, and only the lines of the item and place asked', () => {
    // Prepare
    const reservations = [
      reservation('res_1', { lines: [line('rsl_a'), line('rsl_b', { itemId: 'itm_b' }), line('rsl_c', { locationId: 'loc_b' })] }),
      reservation('res_2', { status: 'released' }),
    ];

    // Act
    const byStatus = filteredReservationRows(reservations, { status: 'released' });
    const byLine = filteredReservationRows(reservations, { itemId: 'itm_a', locationId: 'loc_a', reference: 'REF-res_1' });
    const all = filteredReservationRows(reservations, {});

    // Assess
    expect(byStatus.map((row) => row.lineId)).toEqual(['rsl_res_2']);
    expect(byLine.map((row) => row.lineId)).toEqual(['rsl_a']);
    expect(all.map((row) => row.lineId)).toEqual(['rsl_a', 'rsl_b', 'rsl_c', 'rsl_res_2']);
  });

  it('takes only the statuses a reservation has as its status filter (400 otherwise)', () => {
    // Act + Assess
    expect(validateFilters(kind, { status: 'expired', sku: 'A' })).toEqual({ status: 'expired', sku: 'A' });
    expect(() => validateFilters(kind, { status: 'pending' })).toThrow(
      expect.objectContaining({ errors: [expect.objectContaining({ pointer: '/filters/status', code: 'invalid-value' })] }),
    );
  });
});

describe('reservationsAtSnapshot', () => {
  it('keeps one unchanged since S, leaves out one created after S and rolls one changed after S back to the before-image of its first change', async () => {
    // Prepare: S = 1. res_1 unchanged since; res_2 created after S; res_3 released at t1 then fulfilled at t2 after S
    const t1 = '2026-12-01T00:00:05.000Z';
    const t2 = '2026-12-01T00:00:06.000Z';
    const atS = reservation('res_3', { lines: [line('rsl_3', { quantity: 5 })] });
    const afterT1 = { ...atS, updatedAt: t1, lines: [line('rsl_3', { releasedQuantity: 2 })] };
    const now = { ...afterT1, status: 'fulfilled' as const, updatedAt: t2, lines: [line('rsl_3', { releasedQuantity: 2, fulfilledQuantity: 3 })] };
    const created = reservation('res_2', { createdAt: '2026-12-01T00:00:04.000Z', updatedAt: '2026-12-01T00:00:04.000Z' });
    const events = feed(['res_1', '2026-12-01T00:00:00.000Z'], ['res_2', created.createdAt], [null, t1], ['res_3', t1], ['res_3', t1], ['res_3', t2]);
    const rollback = new SnapshotRollback(events, 'o', 1);
    const asked: unknown[] = [];
    const beforeImages = new Map([
      [`res_3#${t1}`, atS],
      [`res_3#${t2}`, afterT1],
    ]);
    const ports = {
      before: async (_organizationId: string, changes: ReadonlyArray<{ reservationId: string; changedAt: string }>) => {
        asked.push(...changes);
        return new Map(
          changes.flatMap(({ reservationId, changedAt }) =>
            beforeImages.has(`${reservationId}#${changedAt}`) ? [[reservationId, beforeImages.get(`${reservationId}#${changedAt}`)!] as const] : [],
          ),
        );
      },
    };

    // Act
    await rollback.catchUp();
    const atSnapshot = await reservationsAtSnapshot(ports, 'o', rollback, [reservation('res_1'), created, now]);

    // Assess
    expect(atSnapshot).toEqual([reservation('res_1'), atS]);
    expect(asked).toEqual([{ reservationId: 'res_3', changedAt: t1 }]);
  });

  it('writes a reservation whose change stored no before-image (committed before they were stored) as it is read', async () => {
    // Prepare
    const changed = reservation('res_1', { updatedAt: '2026-12-01T00:00:09.000Z', status: 'released' });
    const rollback = new SnapshotRollback(feed(['res_1', '2026-12-01T00:00:09.000Z']), 'o', 0);

    // Act
    await rollback.catchUp();
    const atSnapshot = await reservationsAtSnapshot({ before: async () => new Map() }, 'o', rollback, [changed]);

    // Assess
    expect(atSnapshot).toEqual([changed]);
  });
});

describe('changeTime', () => {
  it('is now, but always after the reservation’s last change, so each of its versions has its own updatedAt', () => {
    // Act + Assess
    expect(changeTime({ updatedAt: '2026-12-01T00:00:00.000Z' }, new Date('2026-12-01T00:00:03.000Z'))).toBe('2026-12-01T00:00:03.000Z');
    expect(changeTime({ updatedAt: '2026-12-01T00:00:00.000Z' }, new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12-01T00:00:00.001Z');
    expect(changeTime({ updatedAt: '2026-12-01T00:00:05.000Z' }, new Date('2026-12-01T00:00:00.000Z'))).toBe('2026-12-01T00:00:05.001Z');
  });
});
