import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { MAX_RESERVATION_STORED_LINES } from '../../lib/domain/reservations/limits.ts';
import type { Reservation } from '../../lib/domain/reservations/reservation.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { csvOf, importAndWait } from '../support/imports.ts';
import { expectProblem } from '../support/problem.ts';

/**
 * A reservation split across many lots never answers a 5xx (docs/inventory.md "Reservations and
 * available stock"): every reservation is created, released, fulfilled and expired in one
 * transaction, so a create that would hold more lots than one transaction can settle (37), or
 * pass over more lots held in full than its own transaction can check, is refused with 409
 * `customer-api.reservations.too-many-lots`, nothing held; 37 lots are held and fulfilled whole.
 */

let key: string;
const lotsOf = (prefix: string, count: number) => Array.from({ length: count }, (_, index) => `${prefix}-${String(index).padStart(3, '0')}`);

async function post(path: string, body?: unknown): Promise<Response> {
  return callApi(path, {
    method: 'POST',
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function itemIdOf(sku: string): Promise<string> {
  const items = (await (await callApi(`/v1/items?sku=${sku}`, { key })).json()) as { data: Array<{ id: string }> };
  return items.data[0]!.id;
}

async function availabilityOf(sku: string): Promise<{ onHand: number; reserved: number; available: number }> {
  return (await (await callApi(`/v1/items/${await itemIdOf(sku)}/availability`, { key })).json()) as { onHand: number; reserved: number; available: number };
}

beforeAll(async () => {
  ({ key } = await createTestKey());
  const succeeded = async (kind: string, file: string) => expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded('items', csvOf(['sku', 'name', 'trackingMode'], [['SIXTY', 'Sixty lots', 'lot'], ['MAXIMAL', 'Maximal', 'lot'], ['CROWDED', 'Crowded', 'lot']]));
  await succeeded('locations', csvOf(['code', 'name', 'type'], [['BIN-1', 'Bin one', 'bin']]));
  const receipt = (sku: string, lots: string[]) => lots.map((lot) => ['PO-1', sku, 'BIN-1', '2', lot]);
  await succeeded('po-receipts', csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], [...receipt('SIXTY', lotsOf('S', 60)), ...receipt('MAXIMAL', lotsOf('M', 37)), ...receipt('CROWDED', lotsOf('HELD', 93))]));
  // Received later: the newest lot, after every held one.
  await succeeded('po-receipts', csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], receipt('CROWDED', ['FREE'])));
});

describe('A reservation split across many lots', () => {
  it('60 lots: the create is refused with 409 too-many-lots, nothing held, and nothing answers a 5xx', { timeout: 30_000 }, async () => {
    // Act: a quantity needing every lot, then (had it been held) a fulfilment of all of it
    const create = await post('/v1/reservations', { reference: 'SIXTY-ALL', lines: [{ sku: 'SIXTY', locationCode: 'BIN-1', quantity: 120 }] });
    const fulfil = create.status === 201 ? await post(`/v1/reservations/${((await create.clone().json()) as Reservation).id}/fulfil`) : undefined;

    // Assess
    expect(create.status).toBeLessThan(500);
    if (fulfil) expect(fulfil.status, await fulfil.text()).toBeLessThan(500);
    const problem = await expectProblem(create, 409, 'customer-api.reservations.too-many-lots');
    expect(problem).toMatchObject({ storedLines: 60, maxStoredLines: MAX_RESERVATION_STORED_LINES, detail: expect.stringMatching(/Name the lots to hold \(`lot`\) or reserve less at a time/) });
    expect(await availabilityOf('SIXTY')).toMatchObject({ onHand: 120, reserved: 0, available: 120 });
  });

  it('60 lots reserved in parts of at most 37: each held, released and fulfilled whole', { timeout: 30_000 }, async () => {
    // Act
    const first = await post('/v1/reservations', { reference: 'SIXTY-1', lines: [{ sku: 'SIXTY', locationCode: 'BIN-1', quantity: 74 }] });
    const second = await post('/v1/reservations', { reference: 'SIXTY-2', lines: [{ sku: 'SIXTY', locationCode: 'BIN-1', quantity: 46 }] });
    const [held1, held2] = [(await first.json()) as Reservation, (await second.json()) as Reservation];
    const fulfilled = await post(`/v1/reservations/${held1.id}/fulfil`);
    const released = await post(`/v1/reservations/${held2.id}/release`);

    // Assess
    expect([first.status, second.status, fulfilled.status, released.status]).toEqual([201, 201, 200, 200]);
    expect([held1.lines.length, held2.lines.length]).toEqual([37, 23]);
    expect(((await fulfilled.json()) as Reservation).status).toBe('fulfilled');
    expect(((await released.json()) as Reservation).status).toBe('released');
    expect(await availabilityOf('SIXTY')).toMatchObject({ onHand: 46, reserved: 0, available: 46 });
  });

  it(`${MAX_RESERVATION_STORED_LINES} lots: held and fulfilled whole in one transaction each, one shipment a lot`, { timeout: 30_000 }, async () => {
    // Act
    const create = await post('/v1/reservations', { reference: 'MAXIMAL-ALL', lines: [{ sku: 'MAXIMAL', locationCode: 'BIN-1', quantity: 74 }] });
    const reservation = (await create.json()) as Reservation;
    const fulfil = await post(`/v1/reservations/${reservation.id}/fulfil`);
    const movements = (await (await callApi(`/v1/movements?itemId=${await itemIdOf('MAXIMAL')}&type=shipment&limit=100`, { key })).json()) as { data: Array<{ type: string; reference: string | null }> };

    // Assess
    expect(create.status).toBe(201);
    expect(reservation.lines).toHaveLength(MAX_RESERVATION_STORED_LINES);
    expect(fulfil.status).toBe(200);
    expect(((await fulfil.json()) as Reservation).status).toBe('fulfilled');
    expect(movements.data.map((movement) => movement.reference)).toEqual(Array.from({ length: MAX_RESERVATION_STORED_LINES }, () => 'MAXIMAL-ALL'));
    expect(await availabilityOf('MAXIMAL')).toMatchObject({ onHand: 0, reserved: 0, available: 0 });
  });

  it('passing over 93 lots other reservations hold in full: refused with 409 too-many-lots, nothing held; naming the lot holds it', { timeout: 30_000 }, async () => {
    // Prepare: every HELD lot held in full by reservations naming their lots (20 lines at most each)
    const held = lotsOf('HELD', 93);
    for (let start = 0; start < held.length; start += 20) {
      const lines = held.slice(start, start + 20).map((lot) => ({ sku: 'CROWDED', locationCode: 'BIN-1', lot, quantity: 2 }));
      expect((await post('/v1/reservations', { reference: `HOLD-${start}`, lines })).status).toBe(201);
    }

    // Act
    const oldestFirst = await post('/v1/reservations', { reference: 'CROWDED-ANY', lines: [{ sku: 'CROWDED', locationCode: 'BIN-1', quantity: 1 }] });
    const named = await post('/v1/reservations', { reference: 'CROWDED-FREE', lines: [{ sku: 'CROWDED', locationCode: 'BIN-1', lot: 'FREE', quantity: 1 }] });

    // Assess
    const problem = await expectProblem(oldestFirst, 409, 'customer-api.reservations.too-many-lots');
    expect(problem).toMatchObject({ storedLines: 1, maxStoredLines: MAX_RESERVATION_STORED_LINES, detail: expect.stringMatching(/passes over more lots other reservations hold in full.*Name the lots to hold/) });
    expect(named.status).toBe(201);
    expect(await availabilityOf('CROWDED')).toMatchObject({ onHand: 188, reserved: 187, available: 1 });
  });
});
