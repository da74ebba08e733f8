import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';

/**
 * The reservation routes over HTTP against `npm start` (docs/inventory.md "Reservations and
 * available stock"): holds drawn on available stock, oldest lots first, release and fulfilment in
 * part or whole, the stock writes they protect, the codes, the list filters, the scope, and many
 * clients reserving the last units at once.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

interface ReservationLine {
  lineId: string;
  sku: string;
  lot: string | null;
  stockRecordId: string;
  quantity: number;
  fulfilledQuantity: number;
  releasedQuantity: number;
}
interface Reservation {
  id: string;
  reference: string;
  status: string;
  expiresAt: string;
  createdAt: string;
  lines: ReservationLine[];
}
interface FeedEvent {
  type: string;
  data: Record<string, unknown>;
}

let key: string;

beforeAll(async () => {
  ({ key } = await createTestKey());
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded('items', csv('sku,name,trackingMode,reorderPoint', 'WIDGET,Widget,none,', 'RESIN,Resin,lot,', 'GADGET,Gadget,none,', 'BOLT,Bolt,none,8'));
  await succeeded('locations', csv('code,name,type', 'A1,Bin A1,bin', 'B1,Bin B1,bin'));
  await succeeded(
    'po-receipts',
    csv('poNumber,sku,locationCode,quantity,lot', 'PO-1,WIDGET,A1,10,', 'PO-1,RESIN,A1,3,L1', 'PO-1,GADGET,A1,5,', 'PO-1,BOLT,A1,10,'),
  );
  // A later lot: receipt order is the order lots are held in.
  await succeeded('po-receipts', csv('poNumber,sku,locationCode,quantity,lot', 'PO-2,RESIN,A1,5,L2'));
});

function post(path: string, body: unknown, options: { key?: string } = {}) {
  return callApi(path, {
    method: 'POST',
    key: options.key ?? key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

async function created(body: unknown): Promise<Reservation> {
  const response = await post('/v1/reservations', body);
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return JSON.parse(text) as Reservation;
}

async function problemOf(
  response: Response,
  status: number,
): Promise<{ code: string; lines?: unknown[]; errors?: Array<{ pointer: string }> } & Record<string, unknown>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text);
}

async function eventsOf(type: string): Promise<FeedEvent[]> {
  const feed = (await (await callApi(`/v1/events?type=${type}&limit=200`, { key })).json()) as { data: FeedEvent[] };
  return feed.data;
}

/** The last stock.changed of a record: its on-hand, reserved and available as the feed tells them. */
async function stateOf(stockRecordId: string): Promise<{ quantity: number; reserved: number; available: number }> {
  const changes = (await eventsOf('stock.changed')).filter((event) => event.data.stockRecordId === stockRecordId);
  const last = changes.at(-1)?.data as { quantity: number; reserved: number; available: number };
  return { quantity: last.quantity, reserved: last.reserved, available: last.available };
}

describe('POST /v1/reservations', () => {
  it('holds the lines, answers 201 with the reservation, which GET reads back; stock.changed says reserved and available', async () => {
    // Act
    const reservation = await created({ reference: 'ORDER-1', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantity: 4 }] });
    const read = await callApi(`/v1/reservations/${reservation.id}`, { key });

    // Assess
    expect(reservation).toMatchObject({
      reference: 'ORDER-1',
      status: 'active',
      lines: [{ sku: 'WIDGET', lot: null, quantity: 4, fulfilledQuantity: 0, releasedQuantity: 0 }],
    });
    expect(Date.parse(reservation.expiresAt) - Date.parse(reservation.createdAt)).toBe(24 * 60 * 60 * 1000);
    expect(await read.json()).toEqual(reservation);
    const line = reservation.lines[0] as ReservationLine;
    expect(await stateOf(line.stockRecordId)).toEqual({ quantity: 10, reserved: 4, available: 6 });
    const held = (await eventsOf('stock.changed')).filter((event) => event.data.reservationId === reservation.id);
    expect(held.map((event) => [event.data.delta, event.data.movementId])).toEqual([[0, null]]);
  });

  it('protects what it holds: an adjustment may take only what is available', async () => {
    // Act
    const tooMuch = await post('/v1/stock/adjustments', {
      reference: 'SALE-1',
      lines: [{ sku: 'WIDGET', locationCode: 'A1', quantityDelta: -7, expectedQuantity: null }],
    });
    const enough = await post('/v1/stock/adjustments', {
      reference: 'SALE-2',
      lines: [{ sku: 'WIDGET', locationCode: 'A1', quantityDelta: -6, expectedQuantity: 10 }],
    });

    // Assess
    expect(await problemOf(tooMuch, 409)).toMatchObject({ code: 'customer-api.stock.insufficient-stock', lines: [{ line: 0, available: 6, requested: 7 }] });
    expect(enough.status).toBe(201);
    expect(await enough.json()).toMatchObject({ lines: [{ quantity: 4, reserved: 4, available: 0 }] });
  });

  it('holds the oldest lots first for a lot item without a lot, one line per lot', async () => {
    // Act
    const reservation = await created({ reference: 'ORDER-LOTS', lines: [{ sku: 'RESIN', locationCode: 'A1', quantity: 5 }] });

    // Assess
    expect(reservation.lines.map((line) => [line.lot, line.quantity])).toEqual([
      ['L1', 3],
      ['L2', 2],
    ]);
  });

  it('answers 409 insufficient-stock with what is available, and 409 reference-taken; nothing is held', async () => {
    // Act
    const short = await post('/v1/reservations', {
      reference: 'ORDER-2',
      lines: [
        { sku: 'GADGET', locationCode: 'A1', quantity: 2 },
        { sku: 'RESIN', locationCode: 'A1', quantity: 4 },
      ],
    });
    const taken = await post('/v1/reservations', { reference: 'ORDER-1', lines: [{ sku: 'GADGET', locationCode: 'A1', quantity: 1 }] });
    const again = await created({ reference: 'ORDER-2', lines: [{ sku: 'GADGET', locationCode: 'A1', quantity: 2 }] });

    // Assess
    expect(await problemOf(short, 409)).toMatchObject({ code: 'customer-api.stock.insufficient-stock', lines: [{ line: 1, available: 3, requested: 4 }] });
    expect(await problemOf(taken, 409)).toMatchObject({ code: 'customer-api.reservations.reference-taken', reservationId: expect.stringMatching(/^res_/) });
    expect(await stateOf(again.lines[0]?.stockRecordId ?? '')).toEqual({ quantity: 5, reserved: 2, available: 3 });
  });

  it.each([
    ['an unknown sku', { reference: 'BAD-1', lines: [{ sku: 'NOPE', locationCode: 'A1', quantity: 1 }] }, '/lines/0/sku'],
    ['a lot on an item not tracked by lot', { reference: 'BAD-2', lines: [{ sku: 'WIDGET', locationCode: 'A1', lot: 'L1', quantity: 1 }] }, '/lines/0/lot'],
    [
      'an expiresAt in the past',
      { reference: 'BAD-3', expiresAt: '2020-01-01T00:00:00Z', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantity: 1 }] },
      '/expiresAt',
    ],
    [
      'an expiresAt more than 30 days ahead',
      { reference: 'BAD-4', expiresAt: '2999-01-01T00:00:00Z', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantity: 1 }] },
      '/expiresAt',
    ],
    ['21 lines', { reference: 'BAD-5', lines: Array.from({ length: 21 }, () => ({ sku: 'WIDGET', locationCode: 'A1', quantity: 1 })) }, '/lines'],
  ])('answers 400 for %s', async (_what, body, pointer) => {
    const problem = await problemOf(await post('/v1/reservations', body), 400);
    expect(problem.errors?.map((error) => error.pointer)).toContain(pointer);
  });
});

describe('releasing and fulfilling', () => {
  it('releases part of a line, then everything left with no body; then it is released and answers 409 not-active', async () => {
    // Prepare
    const reservation = await created({ reference: 'ORDER-REL', lines: [{ sku: 'BOLT', locationCode: 'A1', quantity: 3 }] });
    const line = reservation.lines[0] as ReservationLine;

    // Act
    const part = await post(`/v1/reservations/${reservation.id}/release`, { lines: [{ lineId: line.lineId, quantity: 1 }] });
    const over = await post(`/v1/reservations/${reservation.id}/release`, { lines: [{ lineId: line.lineId, quantity: 5 }] });
    const rest = await post(`/v1/reservations/${reservation.id}/release`, undefined);
    const again = await post(`/v1/reservations/${reservation.id}/release`, undefined);

    // Assess
    expect(await part.json()).toMatchObject({ status: 'active', lines: [{ releasedQuantity: 1 }] });
    expect(await problemOf(over, 409)).toMatchObject({
      code: 'customer-api.reservations.over-quantity',
      lines: [{ lineId: line.lineId, requested: 5, left: 2 }],
    });
    expect(await rest.json()).toMatchObject({ status: 'released', lines: [{ releasedQuantity: 3 }] });
    expect(await problemOf(again, 409)).toMatchObject({ code: 'customer-api.reservations.not-active', reservationStatus: 'released' });
    expect(await stateOf(line.stockRecordId)).toEqual({ quantity: 10, reserved: 0, available: 10 });
  });

  it('fulfils with a shipment movement out of on-hand and reserved together; low-stock follows available', async () => {
    // Prepare: BOLT has 10 on hand, reorder point 8
    const reservation = await created({ reference: 'ORDER-SHIP', lines: [{ sku: 'BOLT', locationCode: 'A1', quantity: 3 }] });
    const line = reservation.lines[0] as ReservationLine;

    // Act
    const fulfilled = await post(`/v1/reservations/${reservation.id}/fulfil`, {});

    // Assess
    expect(await fulfilled.json()).toMatchObject({ status: 'fulfilled', lines: [{ fulfilledQuantity: 3 }] });
    expect(await stateOf(line.stockRecordId)).toEqual({ quantity: 7, reserved: 0, available: 7 });
    const movements = (await eventsOf('movement.created')).map((event) => event.data.movement as { type: string; reference: string; quantity: number });
    expect(movements.filter((movement) => movement.reference === 'ORDER-SHIP')).toEqual([expect.objectContaining({ type: 'shipment', quantity: 3 })]);
    // Each hold of 3 took available from 10 to 7, below 8 (ORDER-REL's, released since, then this one's):
    // low-stock each time, on-hand unchanged; shipping left available at 7, so no third one.
    const lowStock = (await eventsOf('low-stock')).filter((event) => event.data.sku === 'BOLT');
    expect(lowStock.map((event) => [event.data.onHand, event.data.reserved, event.data.available])).toEqual([
      [10, 3, 7],
      [10, 3, 7],
    ]);
  });

  it('lets a count set on-hand below what is reserved; a fulfilment then cannot ship more than is there', async () => {
    // Prepare: GADGET at A1 holds 5, 2 of it reserved by ORDER-2
    const reservation = await created({ reference: 'ORDER-CNT', lines: [{ sku: 'GADGET', locationCode: 'A1', quantity: 3 }] });

    // Act
    const count = await post('/v1/stock/counts', {
      countReference: 'CNT-1',
      locationCode: 'A1',
      lines: [{ sku: 'GADGET', countedQuantity: 1, expectedQuantity: 5 }],
    });
    const fulfil = await post(`/v1/reservations/${reservation.id}/fulfil`, undefined);

    // Assess
    expect(count.status).toBe(201);
    expect(await count.json()).toMatchObject({ lines: [{ quantity: 1, reserved: 5, available: -4 }] });
    expect(await problemOf(fulfil, 409)).toMatchObject({ code: 'customer-api.stock.insufficient-stock', lines: [{ line: 0, available: 1, requested: 3 }] });
  });

  it('answers 404 for a reservation of another organization, and 400 for a line it does not have', async () => {
    // Prepare
    const reservation = await created({ reference: 'ORDER-404', lines: [{ sku: 'BOLT', locationCode: 'A1', quantity: 1 }] });
    const { key: other } = await createTestKey();

    // Act
    const elsewhere = await callApi(`/v1/reservations/${reservation.id}`, { key: other });
    const releaseElsewhere = await post(`/v1/reservations/${reservation.id}/release`, undefined, { key: other });
    const unknownLine = await post(`/v1/reservations/${reservation.id}/release`, { lines: [{ lineId: 'rsl_01KH8MP4807D4A2FX90YJXQ7VB', quantity: 1 }] });

    // Assess
    expect(await problemOf(elsewhere, 404)).toMatchObject({ code: 'customer-api.reservations.not-found' });
    expect(releaseElsewhere.status).toBe(404);
    expect((await problemOf(unknownLine, 400)).errors?.map((error) => error.pointer)).toEqual(['/lines/0/lineId']);
  });
});

describe('GET /v1/reservations', () => {
  it('lists oldest first, filtered by status, reference and item', async () => {
    // Act
    const all = (await (await callApi('/v1/reservations?limit=100', { key })).json()) as { data: Reservation[] };
    const released = (await (await callApi('/v1/reservations?status=released', { key })).json()) as { data: Reservation[] };
    const byReference = (await (await callApi('/v1/reservations?reference=ORDER-LOTS', { key })).json()) as { data: Reservation[] };
    const items = (await (await callApi('/v1/items?sku=RESIN', { key })).json()) as { data: Array<{ id: string }> };
    const byItem = (await (await callApi(`/v1/reservations?itemId=${items.data[0]?.id}`, { key })).json()) as { data: Reservation[] };

    // Assess
    const references = all.data.map((reservation) => reservation.reference);
    expect(references.slice(0, 3)).toEqual(['ORDER-1', 'ORDER-LOTS', 'ORDER-2']);
    expect(released.data.map((reservation) => reservation.reference)).toEqual(['ORDER-REL']);
    expect(byReference.data.map((reservation) => reservation.reference)).toEqual(['ORDER-LOTS']);
    expect(byItem.data.map((reservation) => reservation.reference)).toEqual(['ORDER-LOTS']);
  });

  it('needs inventory:read to list and stock:write to reserve', async () => {
    const { key: readOnly } = await createTestKey({ scopes: ['inventory:read'] });
    expect((await callApi('/v1/reservations', { key: readOnly })).status).toBe(200);
    expect((await post('/v1/reservations', { reference: 'SCOPE', lines: [{ sku: 'BOLT', locationCode: 'A1', quantity: 1 }] }, { key: readOnly })).status).toBe(
      403,
    );
  });
});

describe('reserving the last units at once', () => {
  it('of 8 clients asking for 2 of 5 units, at most 2 succeed; the others get 409 with what is available; reserved never passes on-hand', async () => {
    // Prepare: 5 WIDGET at B1
    expect(
      (await post('/v1/stock/adjustments', { reference: 'SEED-B1', lines: [{ sku: 'WIDGET', locationCode: 'B1', quantityDelta: 5, expectedQuantity: 0 }] }))
        .status,
    ).toBe(201);

    // Act
    const responses = await Promise.all(
      Array.from({ length: 8 }, (_, client) =>
        post('/v1/reservations', { reference: `RACE-${client}`, lines: [{ sku: 'WIDGET', locationCode: 'B1', quantity: 2 }] }),
      ),
    );

    // Assess
    const statuses = responses.map((response) => response.status);
    expect(statuses.filter((status) => status === 201)).toHaveLength(2);
    expect(statuses.filter((status) => status !== 201).every((status) => status === 409)).toBe(true);
    let stockRecordId = '';
    for (const response of responses) {
      const body = (await response.json()) as Reservation & { code?: string; lines: Array<{ available?: number }> };
      if (response.status === 201) stockRecordId = body.lines[0] ? (body.lines[0] as unknown as ReservationLine).stockRecordId : '';
      else expect(['customer-api.stock.insufficient-stock', 'customer-api.request.conflict']).toContain(body.code);
    }
    expect(await stateOf(stockRecordId)).toEqual({ quantity: 5, reserved: 4, available: 1 });
  });
});
