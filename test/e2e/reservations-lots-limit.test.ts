import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { LINES_PER_SLICE } from '../../lib/reservations/domain/limits.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { callApi, createTestKey } from '../support/api.ts';
import { csvOf, importAndWait } from '../support/imports.ts';
import { sweepOrganization } from '../support/reservations.ts';

/**
 * A reservation holds as many lots as its lines need (docs/inventory.md "Reservations and
 * available stock"): one of 60 or 120 lots is created, fulfilled in part and whole, released
 * and expired, in slices of LINES_PER_SLICE lots when one transaction does not hold it all, each
 * answer as for a small one, and on-hand and reserved exact afterwards; a create that passes over
 * 93 lots other reservations hold in full holds the free one.
 */

let key: string;
let organizationId: string;
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

async function reservationOf(response: Response, status: number): Promise<Reservation> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text) as Reservation;
}

const SKUS = ['SIXTY', 'FULFIL120', 'RELEASE120', 'EXPIRE120'] as const;
/** Lots whose names are at their longest (64 characters of 3 UTF-8 bytes): 400 of them pass what one stored reservation takes. */
const LONG_LOTS = Array.from({ length: 400 }, (_, index) => `${'€'.repeat(60)}${String(index).padStart(4, '0')}`);

beforeAll(async () => {
  const created = await createTestKey();
  key = created.key;
  organizationId = created.record.organizationId;
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded(
    'items',
    csvOf(['sku', 'name', 'trackingMode'], [...SKUS.map((sku) => [sku, sku, 'lot']), ['CROWDED', 'Crowded', 'lot'], ['LONGLOTS', 'Long lots', 'lot']]),
  );
  await succeeded('locations', csvOf(['code', 'name', 'type'], [['BIN-1', 'Bin one', 'bin']]));
  const receipt = (sku: string, lots: string[]) => lots.map((lot) => ['PO-1', sku, 'BIN-1', '2', lot]);
  await succeeded(
    'po-receipts',
    csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], [...receipt('SIXTY', lotsOf('S', 60)), ...receipt('CROWDED', lotsOf('HELD', 93))]),
  );
  for (const sku of ['FULFIL120', 'RELEASE120', 'EXPIRE120'])
    await succeeded('po-receipts', csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], receipt(sku, lotsOf(sku.slice(0, 1), 120))));
  await succeeded('po-receipts', csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], receipt('LONGLOTS', LONG_LOTS)));
  // Received later: the newest lot, after every held one.
  await succeeded('po-receipts', csvOf(['poNumber', 'sku', 'locationCode', 'quantity', 'lot'], receipt('CROWDED', ['FREE'])));
}, 120_000);

describe('A reservation split across many lots', () => {
  it('60 lots: held, fulfilled in part (50 lots, two slices), then released whole; on-hand and reserved exact', { timeout: 60_000 }, async () => {
    // Act
    const held = await reservationOf(
      await post('/v1/reservations', { reference: 'SIXTY-ALL', lines: [{ sku: 'SIXTY', locationCode: 'BIN-1', quantity: 120 }] }),
      201,
    );
    const afterHold = await availabilityOf('SIXTY');
    const part = await reservationOf(
      await post(`/v1/reservations/${held.id}/fulfil`, { lines: held.lines.slice(0, 50).map((line) => ({ lineId: line.lineId, quantity: 1 })) }),
      200,
    );
    const afterPart = await availabilityOf('SIXTY');
    const released = await reservationOf(await post(`/v1/reservations/${held.id}/release`), 200);

    // Assess
    expect(held.lines).toHaveLength(60);
    expect(held.lines.map((line) => line.lot).sort()).toEqual(lotsOf('S', 60));
    expect(afterHold).toMatchObject({ onHand: 120, reserved: 120, available: 0 });
    expect(part.status).toBe('active');
    expect(part.lines.map((line) => line.fulfilledQuantity)).toEqual([...Array<number>(50).fill(1), ...Array<number>(10).fill(0)]);
    expect(afterPart).toMatchObject({ onHand: 70, reserved: 70, available: 0 });
    expect(released.status).toBe('fulfilled');
    expect(released.lines.map((line) => line.releasedQuantity)).toEqual([...Array<number>(50).fill(1), ...Array<number>(10).fill(2)]);
    expect(await availabilityOf('SIXTY')).toMatchObject({ onHand: 70, reserved: 0, available: 70 });
    expect(((await (await callApi(`/v1/reservations/${held.id}`, { key })).json()) as Reservation).status).toBe('fulfilled');
  });

  it('120 lots: held and fulfilled whole, one shipment a lot', { timeout: 60_000 }, async () => {
    // Act
    const held = await reservationOf(
      await post('/v1/reservations', { reference: 'FULFIL-ALL', lines: [{ sku: 'FULFIL120', locationCode: 'BIN-1', quantity: 240 }] }),
      201,
    );
    const fulfilled = await reservationOf(await post(`/v1/reservations/${held.id}/fulfil`), 200);
    const shipped: string[] = [];
    for (let cursor: string | null = null; ;) {
      const page = (await (
        await callApi(`/v1/movements?itemId=${await itemIdOf('FULFIL120')}&type=shipment&limit=100${cursor ? `&cursor=${cursor}` : ''}`, { key })
      ).json()) as { data: Array<{ reference: string | null }>; page: { nextCursor: string | null } };
      shipped.push(...page.data.map((movement) => movement.reference ?? ''));
      cursor = page.page.nextCursor;
      if (cursor === null) break;
    }

    // Assess: more lots than one slice holds
    expect(held.lines.length).toBeGreaterThan(3 * LINES_PER_SLICE);
    expect(held.lines).toHaveLength(120);
    expect(fulfilled.status).toBe('fulfilled');
    expect(fulfilled.lines.every((line) => line.fulfilledQuantity === 2 && line.releasedQuantity === 0)).toBe(true);
    expect(shipped).toEqual(Array.from({ length: 120 }, () => 'FULFIL-ALL'));
    expect(await availabilityOf('FULFIL120')).toMatchObject({ onHand: 0, reserved: 0, available: 0 });
  });

  it('120 lots: released in part (100 lots) then whole', { timeout: 60_000 }, async () => {
    // Act
    const held = await reservationOf(
      await post('/v1/reservations', { reference: 'RELEASE-ALL', lines: [{ sku: 'RELEASE120', locationCode: 'BIN-1', quantity: 240 }] }),
      201,
    );
    const part = await reservationOf(
      await post(`/v1/reservations/${held.id}/release`, { lines: held.lines.slice(20).map((line) => ({ lineId: line.lineId, quantity: 1 })) }),
      200,
    );
    const afterPart = await availabilityOf('RELEASE120');
    const released = await reservationOf(await post(`/v1/reservations/${held.id}/release`), 200);

    // Assess
    expect(part.status).toBe('active');
    expect(afterPart).toMatchObject({ onHand: 240, reserved: 140, available: 100 });
    expect(released.status).toBe('released');
    expect(released.lines.every((line) => line.releasedQuantity === 2)).toBe(true);
    expect(await availabilityOf('RELEASE120')).toMatchObject({ onHand: 240, reserved: 0, available: 240 });
  });

  it('120 lots: expired by the sweep in slices', { timeout: 60_000 }, async () => {
    // Prepare
    const expiresAt = new Date(Date.now() + 60_000).toISOString();
    const held = await reservationOf(
      await post('/v1/reservations', { reference: 'EXPIRE-ALL', expiresAt, lines: [{ sku: 'EXPIRE120', locationCode: 'BIN-1', quantity: 239 }] }),
      201,
    );
    const afterHold = await availabilityOf('EXPIRE120');

    // Act: the sweep as of after its expiry
    const swept = await sweepOrganization(organizationId, new Date(Date.parse(expiresAt) + 1_000));

    // Assess
    expect(held.lines).toHaveLength(120);
    expect(afterHold).toMatchObject({ onHand: 240, reserved: 239, available: 1 });
    expect(swept).toMatchObject({ expired: 1, errors: 0 });
    const after = (await (await callApi(`/v1/reservations/${held.id}`, { key })).json()) as Reservation;
    expect(after.status).toBe('expired');
    expect(after.lines.reduce((sum, line) => sum + line.releasedQuantity, 0)).toBe(239);
    expect(await availabilityOf('EXPIRE120')).toMatchObject({ onHand: 240, reserved: 0, available: 240 });
  });

  it('passing over 93 lots other reservations hold in full: the free lot is held', { timeout: 60_000 }, async () => {
    // Prepare: every HELD lot held in full by reservations naming their lots (20 lines at most each)
    const held = lotsOf('HELD', 93);
    for (let start = 0; start < held.length; start += 20) {
      const lines = held.slice(start, start + 20).map((lot) => ({ sku: 'CROWDED', locationCode: 'BIN-1', lot, quantity: 2 }));
      expect((await post('/v1/reservations', { reference: `HOLD-${start}`, lines })).status).toBe(201);
    }

    // Act
    const oldestFirst = await reservationOf(
      await post('/v1/reservations', { reference: 'CROWDED-ANY', lines: [{ sku: 'CROWDED', locationCode: 'BIN-1', quantity: 1 }] }),
      201,
    );

    // Assess
    expect(oldestFirst.lines.map((line) => line.lot)).toEqual(['FREE']);
    expect(await availabilityOf('CROWDED')).toMatchObject({ onHand: 188, reserved: 187, available: 1 });
  });

  it('400 lots of the longest names: 409 too-large naming the lots, nothing held', { timeout: 60_000 }, async () => {
    // Act
    const response = await post('/v1/reservations', { reference: 'LONG-ALL', lines: [{ sku: 'LONGLOTS', locationCode: 'BIN-1', quantity: 800 }] });
    const text = await response.text();

    // Assess
    expect(response.status, text).toBe(409);
    expect(JSON.parse(text)).toMatchObject({ code: 'customer-api.reservations.too-large', storedLines: 400 });
    expect(await availabilityOf('LONGLOTS')).toMatchObject({ onHand: 800, reserved: 0, available: 800 });
  });
});
