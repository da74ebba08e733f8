import { describe, expect, it } from 'vitest';
import { MAX_RESERVATION_STORED_LINES, TooManyLotsError } from '../../../lib/domain/reservations/limits.ts';
import { ReserveCommand, type ReservationInput } from '../../../lib/domain/reservations/reserve.ts';
import { MAX_RESERVATION_LINES, type Reservation } from '../../../lib/domain/reservations/reservation.ts';
import { SettleReservationCommand, type SettleAction } from '../../../lib/domain/reservations/settle.ts';
import { ReservationWorld, transactionActions } from '../../support/reservation-world.ts';
import { itemOf, locationOf } from '../../support/stock-world.ts';

/**
 * A reservation always fits one transaction (lib/domain/reservations/limits.ts): the plans of a
 * maximal reservation's create, release, fulfilment and expiry, with the longest texts the API
 * takes (3 UTF-8 bytes a character), take at most DynamoDB's 100 actions; a create that would hold
 * more lots, or pass over too many lots held in full, is refused with a 409.
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
  const made = Array.from({ length: items }, (_, index) => itemOf(`itm_${String(index).padStart(2, '0')}`, longest(String(index).padStart(2, '0')), { trackingMode: 'lot', reorderPoint: 1 }));
  for (const [index, item] of made.entries()) {
    world.addItem(item);
    for (let lot = 0; lot < lotsOf(index); lot += 1) world.stock(item, PLACE, longest(String(lot).padStart(3, '0')), 1000);
  }
  return { world, items: made };
}

async function created(world: ReservationWorld, input: ReservationInput) {
  return new ReserveCommand(world.ports(NOW)).create(ORG, input);
}

async function settlePlan(world: ReservationWorld, reservation: Reservation, action: SettleAction) {
  return new SettleReservationCommand(world.ports(new Date(NOW.getTime() + 1000))).settle(ORG, reservation.id, action, undefined);
}

describe('MAX_RESERVATION_STORED_LINES', () => {
  it('is what a fulfilment of every lot carries: 2 writes a lot, 1 per item of the 20 request lines, 2 once, the writer’s 4', () => {
    // Assess
    expect(MAX_RESERVATION_STORED_LINES).toBe(37);
    expect(MAX_RESERVATION_STORED_LINES * 2 + MAX_RESERVATION_LINES + 2 + 4).toBeLessThanOrEqual(100);
  });

  it('a maximal reservation (37 lots of 20 items, the longest texts): its create, release, fulfilment and expiry each fit one transaction', async () => {
    // Prepare: item 0 holds 18 lots, the 19 others one each: 37 lots from 20 request lines
    const { world, items } = worldOf(MAX_RESERVATION_LINES, (index) => (index === 0 ? MAX_RESERVATION_STORED_LINES - (MAX_RESERVATION_LINES - 1) : 1));
    const input: ReservationInput = {
      reference: longest('R'),
      expiresAt: null,
      lines: items.map((item, index) => ({ sku: item.sku, locationCode: PLACE.code, lot: null, quantity: index === 0 ? 18_000 : 1000 })),
    };

    // Act
    const create = await created(world, input);
    world.store(create.result);
    const settles = await Promise.all((['release', 'fulfil', 'expire'] as const).map(async (action) => [action, transactionActions(ORG, await settlePlan(world, create.result, action))] as const));

    // Assess
    expect(create.result.lines).toHaveLength(MAX_RESERVATION_STORED_LINES);
    // 37 records + 20 totals + the reservation and its reference (or its before-image) + the writer's 4; a fulfilment adds 37 movements: the bound, exactly 100.
    expect(transactionActions(ORG, create)).toBe(63);
    expect(Object.fromEntries(settles)).toEqual({ release: 63, fulfil: 100, expire: 63 });
  });
});

describe('TooManyLotsError', () => {
  it('refuses a create that would hold one lot more than a reservation may, with 409 too-many-lots naming the limit', async () => {
    // Prepare
    const { world, items } = worldOf(1, () => MAX_RESERVATION_STORED_LINES + 1);

    // Act
    const refused = created(world, { reference: 'R-38', expiresAt: null, lines: [{ sku: items[0]!.sku, locationCode: PLACE.code, lot: null, quantity: 38_000 }] });

    // Assess
    await expect(refused).rejects.toBeInstanceOf(TooManyLotsError);
    await expect(refused).rejects.toMatchObject({ status: 409, code: 'customer-api.reservations.too-many-lots', extensions: { storedLines: 38, maxStoredLines: 37 }, detail: expect.stringMatching(/Name the lots to hold \(`lot`\) or reserve less at a time/) });
  });

  it('holds 37 lots, and refuses a create that passes over more lots held in full than its transaction can check', async () => {
    // Prepare: lots held in full by other reservations come first (oldest); each one passed over is checked at commit
    const fits = worldOf(1, () => 0);
    const overflows = worldOf(1, () => 0);
    const [item] = fits.items;
    for (let lot = 0; lot < 90; lot += 1) fits.world.stock(item!, PLACE, `HELD-${lot}`, 5, 5);
    for (let lot = 0; lot < 95; lot += 1) overflows.world.stock(item!, PLACE, `HELD-${lot}`, 5, 5);
    for (const { world } of [fits, overflows]) for (let lot = 0; lot < MAX_RESERVATION_STORED_LINES; lot += 1) world.stock(item!, PLACE, `FREE-${lot}`, 1);
    const one = { reference: 'R-1', expiresAt: null, lines: [{ sku: item!.sku, locationCode: PLACE.code, lot: null, quantity: 1 }] };
    const all = { reference: 'R-37', expiresAt: null, lines: [{ sku: item!.sku, locationCode: PLACE.code, lot: null, quantity: MAX_RESERVATION_STORED_LINES }] };

    // Act
    const fitting = await created(fits.world, one);
    const allFree = created(fits.world, all);
    const passedOver = created(overflows.world, one);

    // Assess: 90 checks + 1 record + 1 total + the reservation and its reference fit; 95 checks do not
    expect(transactionActions(ORG, fitting)).toBeLessThanOrEqual(100);
    await expect(allFree).rejects.toMatchObject({ code: 'customer-api.reservations.too-many-lots', extensions: { storedLines: 37 } });
    await expect(passedOver).rejects.toMatchObject({ code: 'customer-api.reservations.too-many-lots', extensions: { storedLines: 1 }, detail: expect.stringMatching(/passes over more lots other reservations hold in full/) });
  });
});
