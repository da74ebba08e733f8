import { describe, expect, it } from 'vitest';
import { IDEMPOTENCY_RETENTION_SECONDS } from '../../lib/platform/write/idempotency.ts';
import type { SliceRun } from '../../lib/reservations/domain/ports.ts';
import { ReserveCommand, type ReservationInput } from '../../lib/reservations/domain/reserve.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { SettleReservationCommand, type SettleLineInput } from '../../lib/reservations/domain/settle.ts';
import { decideAgainOnLostRace } from '../../lib/stock/domain/changes/commit.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { commitWrites, lotName, manyLotsAtA1 } from '../support/many-lots.ts';
import { A1 } from '../support/stock-world.ts';

/**
 * The requests a reservation remembers having finished (docs/inventory.md "Reservations and
 * available stock") are remembered as long as their Idempotency-Key is (docs/api-guide.md
 * "Idempotency"): a request under a key whose record has expired is a new request, and runs,
 * rather than being answered as the old one with nothing done. The commands' clock drives the
 * time; one release of one transaction, one in slices.
 */

const ACTOR = { type: 'api-key' as const, id: 'key_remembered_tests' };
const STORED_AT = '2026-11-01T08:00:00.000Z';
const LOTS = 100;
const HOUR = 60 * 60 * 1000;
const ports = (now: Date) => ({ ...reservationPorts(tableName('inventory')), clock: () => now });

const commit = (organizationId: string, writes: StoreWrite[]) => commitWrites(organizationId, ACTOR, writes);

/** MANY tracked by lot: LOTS lots of 2 at A1. */
const world = () => manyLotsAtA1(LOTS, ACTOR, STORED_AT);

const runOf = (organizationId: string, requestKey: string): SliceRun<StoreWrite> => ({
  writer: transactionWriter(),
  context: { organizationId, actor: ACTOR, traceId: null },
  requestKey,
});

async function create(organizationId: string, input: ReservationInput, now: Date): Promise<Reservation> {
  const run = runOf(organizationId, 'create');
  const command = new ReserveCommand(ports(now));
  return decideAgainOnLostRace(async () => (await transactionWriter().run(run.context, () => command.create(organizationId, input, run))).result);
}

/** A release as its route runs it, as of `now`, under the Idempotency-Key whose hash is `requestKey`. */
async function release(organizationId: string, id: string, lines: SettleLineInput[], requestKey: string, now: Date): Promise<Reservation> {
  const run = runOf(organizationId, requestKey);
  const command = new SettleReservationCommand(ports(now));
  return decideAgainOnLostRace(
    async () => (await transactionWriter().run(run.context, () => command.settle(organizationId, id, 'release', lines, run))).result,
  );
}

const released = (reservation: Reservation) => [...new Set(reservation.lines.map((line) => line.releasedQuantity))];

describe('the requests a reservation remembers', () => {
  it.each([
    ['one transaction', { lot: lotName(0), quantity: 2 }],
    ['slices', { lot: null, quantity: 2 * LOTS }],
  ] as const)(
    'a release in %s under a key reused after the key expired runs; within the key retention it is answered, not applied again',
    async (_name, line) => {
      // Prepare: a reservation holding 2 of each lot, and 1 of each released under K
      const organizationId = await world();
      const start = new Date();
      const held = await create(
        organizationId,
        { reference: 'KEYS', expiresAt: new Date(start.getTime() + 10 * 24 * HOUR).toISOString(), lines: [{ sku: 'MANY', locationCode: A1.code, ...line }] },
        start,
      );
      const lines = held.lines.map((entry) => ({ lineId: entry.lineId, quantity: 1 }));
      const first = await release(organizationId, held.id, lines, 'key-k', start);
      const retention = IDEMPOTENCY_RETENTION_SECONDS * 1000;

      // Act: K within its retention (a retry after a crash), then K once its record expired
      const retried = await release(organizationId, held.id, lines, 'key-k', new Date(start.getTime() + retention - HOUR));
      const reused = await release(organizationId, held.id, lines, 'key-k', new Date(start.getTime() + retention + HOUR));

      // Assess
      expect(held.lines).toHaveLength(line.lot === null ? LOTS : 1);
      expect([first.status, released(first)]).toEqual(['active', [1]]);
      expect(retried).toEqual(first);
      expect([reused.status, released(reused)]).toEqual(['released', [2]]);
    },
    300_000,
  );

  it("a request remembered before remembered requests carried a time (its key hash alone) is remembered as of the reservation's last change", async () => {
    // Prepare: a reservation of one lot, its item rewritten as stored before, with K a bare hash
    const organizationId = await world();
    const start = new Date();
    const held = await create(
      organizationId,
      {
        reference: 'LEGACY-KEYS',
        expiresAt: new Date(start.getTime() + 10 * 24 * HOUR).toISOString(),
        lines: [{ sku: 'MANY', locationCode: A1.code, lot: lotName(0), quantity: 2 }],
      },
      start,
    );
    const { store } = reservationPorts(tableName('inventory'));
    const stored = await store.get(organizationId, held.id);
    const put = store.updateWrite(organizationId, held, stored!.version, { requests: [] }).item.Put!;
    await commit(organizationId, [{ item: { Put: { ...put, Item: { ...put.Item, requests: ['legacy-key'] } } } }]);
    const lines = [{ lineId: held.lines[0]!.lineId, quantity: 1 }];
    const retention = IDEMPOTENCY_RETENTION_SECONDS * 1000;

    // Act
    const retried = await release(organizationId, held.id, lines, 'legacy-key', new Date(Date.parse(held.updatedAt) + retention - HOUR));
    const reused = await release(organizationId, held.id, lines, 'legacy-key', new Date(Date.parse(held.updatedAt) + retention + HOUR));

    // Assess
    expect(retried).toEqual(held);
    expect([reused.status, released(reused)]).toEqual(['active', [1]]);
  }, 300_000);
});
