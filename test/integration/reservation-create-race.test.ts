import { describe, expect, it } from 'vitest';
import type { SliceRun } from '../../lib/reservations/domain/ports.ts';
import { ReserveCommand, type ReservationInput } from '../../lib/reservations/domain/reserve.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { SettleReservationCommand } from '../../lib/reservations/domain/settle.ts';
import { decideAgainOnLostRace } from '../../lib/stock/domain/changes/commit.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { tableName, transactionWriter } from '../support/events.ts';
import { sweepOrganization } from '../support/reservations.ts';
import { manyLotsAtA1 } from '../support/many-lots.ts';
import { A1 } from '../support/stock-world.ts';

/**
 * A create in three slices or more (docs/inventory.md "Reservations and available stock") whose
 * operation another writer finishes between two of its slices: a release of the reservation, a
 * second create with the same reference, the expiry sweep. The create's next slice then finds
 * nothing pending; it answers what a retry with its Idempotency-Key answers (the reservation as it
 * stands), never an internal error.
 */

const ACTOR = { type: 'api-key' as const, id: 'key_create_race_tests' };
const STORED_AT = '2026-11-01T08:00:00.000Z';
/** 100 lots: slices of 37, 37 and 26, so the second is committed by the create itself. */
const LOTS = 100;
const ports = () => reservationPorts(tableName('inventory'));

/** MANY tracked by lot: LOTS lots of 2 at A1. */
const world = () => manyLotsAtA1(LOTS, ACTOR, STORED_AT);

function runOf(organizationId: string, requestKey: string, afterSlice?: SliceRun<StoreWrite>['afterSlice']): SliceRun<StoreWrite> {
  return { writer: transactionWriter(), context: { organizationId, actor: ACTOR, traceId: null }, requestKey, ...(afterSlice ? { afterSlice } : {}) };
}

/** A create as the route runs it (a last slice that lost a race is decided again). */
async function create(organizationId: string, input: ReservationInput, run: SliceRun<StoreWrite>): Promise<Reservation> {
  const command = new ReserveCommand(ports());
  return decideAgainOnLostRace(async () => (await transactionWriter().run(run.context, () => command.create(organizationId, input, run))).result);
}

const INPUT: ReservationInput = { reference: 'RACED', expiresAt: null, lines: [{ sku: 'MANY', locationCode: A1.code, lot: null, quantity: 2 * LOTS }] };

/** The other writers, each run after the create's first slice: they finish its operation before their own. */
const RACERS: Array<[string, (organizationId: string, reservationId: string) => Promise<unknown>, Reservation['status'], unknown]> = [
  [
    'a release of it',
    (organizationId, reservationId) => {
      const run = runOf(organizationId, 'racer-release');
      const command = new SettleReservationCommand(ports());
      return decideAgainOnLostRace(
        async () => (await transactionWriter().run(run.context, () => command.settle(organizationId, reservationId, 'release', undefined, run))).result,
      );
    },
    'released',
    { status: 'released' },
  ],
  [
    'a second create with the same reference',
    (organizationId) =>
      create(organizationId, INPUT, runOf(organizationId, 'racer-create')).then(
        () => 'created',
        (error: unknown) => error,
      ),
    'active',
    { code: 'customer-api.reservations.reference-taken' },
  ],
  // As of after the operation's grace: the sweep finishes what the request seems to have left.
  ['the expiry sweep', (organizationId) => sweepOrganization(organizationId, new Date(Date.now() + 10 * 60_000)), 'active', { finished: 1, errors: 0 }],
];

describe('a create in slices raced by another writer', () => {
  it.each(RACERS)(
    'a create whose operation %s finishes between two slices answers what a same-key retry answers',
    async (_name, racer, status, racerOutcome) => {
      // Prepare: after the create's first slice, the racer finishes the operation (and does its own)
      const organizationId = await world();
      let raced: unknown;
      const run = runOf(organizationId, 'create-raced', async (kind, slicesDone) => {
        if (kind !== 'create' || slicesDone !== 1) return;
        const reservationId = await ports().reservations.idOfReference(organizationId, INPUT.reference);
        raced = await racer(organizationId, reservationId!);
      });

      // Act
      const answer = await create(organizationId, INPUT, run).catch((error: unknown) => error);
      const retry = await create(organizationId, INPUT, runOf(organizationId, 'create-raced')).catch((error: unknown) => error);

      // Assess: the racer ran; the create answers the reservation as it stands, as its retry does
      expect(raced).toMatchObject(racerOutcome as object);
      expect(answer).not.toBeInstanceOf(Error);
      expect(answer).toMatchObject({ reference: INPUT.reference, status });
      expect(answer).toEqual(retry);
      const stored = await ports().reservations.get(organizationId, (answer as Reservation).id);
      expect(stored?.pending).toBeUndefined();
      expect(answer).toEqual(stored?.reservation);
      expect((answer as Reservation).lines).toHaveLength(LOTS);
    },
    300_000,
  );
});
