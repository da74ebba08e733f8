import { describe, expect, it } from 'vitest';
import { LINES_PER_SLICE, MAX_RESERVATION_PLAN_BYTES, reservationPlanBytes } from '../../../lib/reservations/domain/limits.ts';
import type { SliceRun } from '../../../lib/reservations/domain/ports.ts';
import { ReserveCommand, type ReservationInput } from '../../../lib/reservations/domain/reserve.ts';
import { MAX_RESERVATION_LINES, type Reservation } from '../../../lib/reservations/domain/reservation.ts';
import { SettleReservationCommand, type SettleAction } from '../../../lib/reservations/domain/settle.ts';
import type { CommandPlan } from '../../../lib/platform/write/ports.ts';
import type { StoreWrite } from '../../../lib/platform/dynamo/transaction-writer.ts';
import { ReservationWorld, transactionActions } from '../../support/reservation-world.ts';
import { itemOf, locationOf } from '../../support/stock-world.ts';

/**
 * Every transaction of a reservation fits DynamoDB's 100 actions (lib/reservations/domain/limits.ts),
 * with the longest texts the API takes (3 UTF-8 bytes a character): a reservation of up to 37 lots
 * is created, released, fulfilled and expired in one transaction each; a larger one, or a create
 * that passes over more lots held in full than one transaction can check, runs in slices of
 * LINES_PER_SLICE lots, each its own transaction (lib/reservations/domain/slices.ts).
 */

const ORG = 'org_limits';
const NOW = new Date('2026-12-01T10:00:00.000Z');
/** `length` characters of 3 UTF-8 bytes each, ending in `suffix`. */
const longest = (suffix: string, length = 64) => `${'€'.repeat(length - suffix.length)}${suffix}`;

const PLACE = locationOf('loc_place', longest('P'));

/** A world with `items` lot-tracked items at PLACE, item i holding `lotsOf(i)` lots of 1000 each; the items in order. */
function worldOf(items: number, lotsOf: (index: number) => number) {
  const world = new ReservationWorld();
  world.addLocation(PLACE);
  const made = Array.from({ length: items }, (_, index) =>
    itemOf(`itm_${String(index).padStart(2, '0')}`, longest(String(index).padStart(2, '0')), { trackingMode: 'lot', reorderPoint: 1 }),
  );
  for (const [index, item] of made.entries()) {
    world.addItem(item);
    for (let lot = 0; lot < lotsOf(index); lot += 1) world.stock(item, PLACE, longest(String(lot).padStart(3, '0')), 1000);
  }
  return { world, items: made };
}

/** A writer that commits nothing and keeps the plans of the slices before the last (the world is not changed by them). */
function recordingRun(): SliceRun<StoreWrite> & { plans: Array<CommandPlan<unknown, StoreWrite>> } {
  const plans: Array<CommandPlan<unknown, StoreWrite>> = [];
  return {
    plans,
    writer: { run: async (_context, build) => ({ result: (plans[plans.length] = await build()).result, events: [], attempts: 1 }) },
    context: { organizationId: ORG, actor: { type: 'system', id: 'limits-test' }, traceId: null },
    requestKey: 'request-key-hash',
  };
}

async function created(world: ReservationWorld, input: ReservationInput, run?: SliceRun<StoreWrite>) {
  return new ReserveCommand(world.ports(NOW)).create(ORG, input, run);
}

async function settlePlan(world: ReservationWorld, reservation: Reservation, action: SettleAction, run?: SliceRun<StoreWrite>) {
  return new SettleReservationCommand(world.ports(new Date(NOW.getTime() + 1000))).settle(ORG, reservation.id, action, undefined, run);
}

describe('LINES_PER_SLICE', () => {
  it('is what a fulfilment slice carries: 2 writes a lot, 1 per item of the 20 request lines, 2 once, the writer’s 4', () => {
    // Assess
    expect(LINES_PER_SLICE).toBe(37);
    expect(LINES_PER_SLICE * 2 + MAX_RESERVATION_LINES + 2 + 4).toBeLessThanOrEqual(100);
  });

  it('a reservation of 37 lots of 20 items (the longest texts): its create, release, fulfilment and expiry each one transaction', async () => {
    // Prepare: item 0 holds 18 lots, the 19 others one each: 37 lots from 20 request lines
    const { world, items } = worldOf(MAX_RESERVATION_LINES, (index) => (index === 0 ? LINES_PER_SLICE - (MAX_RESERVATION_LINES - 1) : 1));
    const input: ReservationInput = {
      reference: longest('R'),
      expiresAt: null,
      lines: items.map((item, index) => ({ sku: item.sku, locationCode: PLACE.code, lot: null, quantity: index === 0 ? 18_000 : 1000 })),
    };

    // Act
    const create = await created(world, input);
    world.store(create.result);
    const settles = await Promise.all(
      (['release', 'fulfil', 'expire'] as const).map(
        async (action) => [action, transactionActions(ORG, await settlePlan(world, create.result, action))] as const,
      ),
    );

    // Assess
    expect(create.result.lines).toHaveLength(LINES_PER_SLICE);
    // 37 records + 20 totals + the reservation and its reference (or its before-image) + the writer's 4; a fulfilment adds 37 movements: exactly 100.
    expect(transactionActions(ORG, create)).toBe(63);
    expect(Object.fromEntries(settles)).toEqual({ release: 63, fulfil: 100, expire: 63 });
  });

  it('a reservation of 150 lots of 20 items: created, released, fulfilled and expired in slices of at most 37 lots, each within 100 actions', async () => {
    // Prepare: item 0 holds 131 lots, the 19 others one each
    const { world, items } = worldOf(MAX_RESERVATION_LINES, (index) => (index === 0 ? 131 : 1));
    const input: ReservationInput = {
      reference: longest('R'),
      expiresAt: null,
      lines: items.map((item, index) => ({ sku: item.sku, locationCode: PLACE.code, lot: null, quantity: index === 0 ? 131_000 : 1000 })),
    };

    // Act
    const createRun = recordingRun();
    const create = await created(world, input, createRun);
    world.store(create.result);
    const settles = await Promise.all(
      (['release', 'fulfil', 'expire'] as const).map(async (action) => {
        const run = recordingRun();
        const last = await settlePlan(world, create.result, action, run);
        return [action, [...run.plans, last].map((plan) => transactionActions(ORG, plan))] as const;
      }),
    );

    // Assess: 150 lots in 5 slices (4 of 37, 1 of 2); the last holds the audit entry
    expect(create.result.lines).toHaveLength(150);
    expect([...createRun.plans, create].map((plan) => transactionActions(ORG, plan)).every((actions) => actions <= 100)).toBe(true);
    expect(createRun.plans).toHaveLength(4);
    expect(createRun.plans.every((plan) => plan.audit === undefined)).toBe(true);
    expect(create.audit?.kind).toBe('reservation.created');
    for (const [action, actions] of settles) {
      expect(actions, action).toHaveLength(5);
      expect(Math.max(...actions), action).toBeLessThanOrEqual(100);
    }
  });

  it('a create that passes over more lots held in full than one transaction can check holds its lot in a slice of its own', async () => {
    // Prepare: lots held in full by other reservations come first (oldest); each one passed over is checked at commit when it fits
    const fits = worldOf(1, () => 0);
    const overflows = worldOf(1, () => 0);
    const [item] = fits.items;
    for (let lot = 0; lot < 90; lot += 1) fits.world.stock(item!, PLACE, `HELD-${lot}`, 5, 5);
    for (let lot = 0; lot < 95; lot += 1) overflows.world.stock(item!, PLACE, `HELD-${lot}`, 5, 5);
    for (const { world } of [fits, overflows]) world.stock(item!, PLACE, 'FREE', 1);
    const one = { reference: 'R-1', expiresAt: null, lines: [{ sku: item!.sku, locationCode: PLACE.code, lot: null, quantity: 1 }] };

    // Act
    const checked = await created(fits.world, one);
    const run = recordingRun();
    const sliced = await created(overflows.world, one, run);

    // Assess: 90 checks + 1 record + 1 total + the reservation and its reference fit; 95 checks do not, so the lot is held unchecked
    expect(transactionActions(ORG, checked)).toBeGreaterThan(90);
    expect(transactionActions(ORG, checked)).toBeLessThanOrEqual(100);
    expect(run.plans).toHaveLength(0);
    expect(sliced.result.lines.map((line) => line.lot)).toEqual(['FREE']);
    expect(transactionActions(ORG, sliced)).toBeLessThanOrEqual(10);
  });

  it('a create whose lots and plan would pass what one stored reservation takes is a 409 too-large, nothing held; one just within is planned', async () => {
    // Prepare: one item of 300 lots, every text at its longest (about 1,650 bytes a lot, lines and plan)
    const { world, items } = worldOf(1, () => 300);
    const [item] = items;
    const lots = (count: number) => ({
      reference: longest('R'),
      expiresAt: null,
      lines: [{ sku: item!.sku, locationCode: PLACE.code, lot: null, quantity: count * 1000 }],
    });

    // Act
    const within = await created(world, lots(150), recordingRun());
    const refusedRun = recordingRun();
    const tooLarge = created(world, lots(300), refusedRun);

    // Assess
    expect(reservationPlanBytes(within.result, within.result.lines)).toBeLessThan(MAX_RESERVATION_PLAN_BYTES);
    await expect(tooLarge).rejects.toMatchObject({ status: 409, code: 'customer-api.reservations.too-large', extensions: { storedLines: 300 } });
    // Refused before its first slice: no transaction was planned.
    expect(refusedRun.plans).toHaveLength(0);
  });
});
