import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';

/**
 * `POST /v1/stock/transfers`, `/v1/stock/counts` and `/v1/stock/receipts` over HTTP against
 * `npm start` (docs/inventory.md "Writing stock over JSON"): each change and its read-back, its
 * events, compare-and-set, insufficient stock, natural keys shared with the import kind, the 400s
 * and the scope. The adjustments route has its own file.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

interface ChangeLine {
  line: number;
  movementId: string | null;
  stockRecordId: string;
  locationCode: string;
  lot: string | null;
  previousQuantity: number;
  quantity: number;
  delta: number;
}
interface Change {
  id: string;
  kind: string;
  reference: string;
  lines: ChangeLine[];
}
interface FeedEvent {
  type: string;
  occurredAt: string;
  data: Record<string, unknown>;
}

let key: string;

beforeAll(async () => {
  ({ key } = await createTestKey());
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded('items', csv('sku,name,trackingMode', 'WIDGET,Widget,none', 'RESIN,Resin,lot', 'GADGET,Gadget,none'));
  await succeeded('locations', csv('code,name,type', 'A1,Bin A1,bin', 'B1,Bin B1,bin', 'C1,Bin C1,bin'));
  await succeeded('po-receipts', csv('poNumber,sku,locationCode,quantity,lot', 'PO-0,WIDGET,A1,10,', 'PO-0,GADGET,A1,2,', 'PO-0,RESIN,A1,6,R1'));
});

function post(path: 'transfers' | 'counts' | 'receipts', body: unknown, options: { idempotencyKey?: string; key?: string } = {}) {
  return callApi(`/v1/stock/${path}`, {
    method: 'POST',
    key: options.key ?? key,
    headers: { 'content-type': 'application/json', 'idempotency-key': options.idempotencyKey ?? randomUUID() },
    body: JSON.stringify(body),
  });
}

async function quantityAt(sku: string, locationCode: string, lot: string | null = null): Promise<number> {
  const items = (await (await callApi(`/v1/items?sku=${sku}`, { key })).json()) as { data: Array<{ id: string }> };
  const records = (await (await callApi(`/v1/stock-records?itemId=${items.data[0]?.id}&limit=200`, { key })).json()) as {
    data: Array<{ locationCode: string; lot: string | null; quantity: number }>;
  };
  return records.data.find((record) => record.locationCode === locationCode && record.lot === lot)?.quantity ?? 0;
}

async function eventsOf(type: string): Promise<FeedEvent[]> {
  const feed = (await (await callApi(`/v1/events?type=${type}&limit=200`, { key })).json()) as { data: FeedEvent[] };
  return feed.data;
}

async function problemOf(response: Response, status: number): Promise<{ code: string; lines?: unknown[]; errors?: Array<{ pointer: string; code: string }> }> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text);
}

const shape = (line: ChangeLine) => ({
  line: line.line,
  locationCode: line.locationCode,
  lot: line.lot,
  previousQuantity: line.previousQuantity,
  quantity: line.quantity,
  delta: line.delta,
});

describe('POST /v1/stock/transfers', () => {
  it('moves each line from its source to its destination, both legs listed; GET reads it back; a replay is byte for byte', async () => {
    // Act
    const idempotencyKey = randomUUID();
    const body = {
      reference: 'TR-1',
      lines: [
        { sku: 'WIDGET', fromLocationCode: 'A1', toLocationCode: 'B1', quantity: 4, expectedQuantity: 10 },
        { sku: 'RESIN', fromLocationCode: 'A1', toLocationCode: 'C1', lot: 'R1', quantity: 1, expectedQuantity: null },
      ],
    };
    const response = await post('transfers', body, { idempotencyKey });
    const text = await response.text();
    const replay = await post('transfers', body, { idempotencyKey });

    // Assess
    expect(response.status, text).toBe(201);
    const change = JSON.parse(text) as Change;
    expect(change).toMatchObject({ kind: 'transfer', reference: 'TR-1' });
    expect(change.lines.map(shape)).toEqual([
      { line: 0, locationCode: 'A1', lot: null, previousQuantity: 10, quantity: 6, delta: -4 },
      { line: 0, locationCode: 'B1', lot: null, previousQuantity: 0, quantity: 4, delta: 4 },
      { line: 1, locationCode: 'A1', lot: 'R1', previousQuantity: 6, quantity: 5, delta: -1 },
      { line: 1, locationCode: 'C1', lot: 'R1', previousQuantity: 0, quantity: 1, delta: 1 },
    ]);
    expect(change.lines[0]?.movementId).toBe(change.lines[1]?.movementId);
    expect(await (await callApi(`/v1/stock/changes/${change.id}`, { key })).json()).toEqual(change);
    expect(replay.status).toBe(201);
    expect(await replay.text()).toBe(text);
    expect([await quantityAt('WIDGET', 'A1'), await quantityAt('WIDGET', 'B1')]).toEqual([6, 4]);
    const movements = (await eventsOf('movement.created')).map((event) => event.data.movement as { id: string; type: string; reference: string });
    expect(movements.filter((movement) => movement.reference === 'TR-1').map((movement) => movement.type)).toEqual(['transfer', 'transfer']);
  });

  it('answers 409 quantity-stale on the source record and 409 insufficient-stock with what the source holds', async () => {
    // Act
    const stale = await post('transfers', {
      reference: 'TR-2',
      lines: [{ sku: 'WIDGET', fromLocationCode: 'A1', toLocationCode: 'B1', quantity: 1, expectedQuantity: 10 }],
    });
    const short = await post('transfers', {
      reference: 'TR-3',
      lines: [{ sku: 'GADGET', fromLocationCode: 'A1', toLocationCode: 'B1', quantity: 3, expectedQuantity: 2 }],
    });

    // Assess
    expect(await problemOf(stale, 409)).toMatchObject({
      code: 'customer-api.stock.quantity-stale',
      lines: [{ line: 0, expectedQuantity: 10, currentQuantity: 6 }],
    });
    expect(await problemOf(short, 409)).toMatchObject({ code: 'customer-api.stock.insufficient-stock', lines: [{ line: 0, available: 2, requested: 3 }] });
    expect(await quantityAt('GADGET', 'A1')).toBe(2);
  });

  it('shares natural keys with the stock-transfers import (reference + sku + lot)', async () => {
    // Prepare
    expect(
      (
        await importAndWait(key, {
          kind: 'stock-transfers',
          duplicateStrategy: 'fail',
          file: csv('reference,sku,fromLocationCode,toLocationCode,quantity', 'TR-IMP,WIDGET,A1,C1,1'),
        })
      ).status,
    ).toBe('succeeded');

    // Act
    const again = await post('transfers', {
      reference: 'TR-IMP',
      lines: [{ sku: 'WIDGET', fromLocationCode: 'B1', toLocationCode: 'C1', quantity: 1, expectedQuantity: null }],
    });

    // Assess
    expect(await problemOf(again, 409)).toMatchObject({
      code: 'customer-api.stock.already-applied',
      lines: [{ line: 0, appliedBy: expect.stringMatching(/^imp_/) }],
    });
    expect(await quantityAt('WIDGET', 'C1')).toBe(1);
  });

  it.each([
    [
      'the same source and destination',
      { sku: 'WIDGET', fromLocationCode: 'A1', toLocationCode: 'A1', quantity: 1, expectedQuantity: null },
      '/lines/0/toLocationCode',
    ],
    [
      'an unknown destination',
      { sku: 'WIDGET', fromLocationCode: 'A1', toLocationCode: 'NOPE', quantity: 1, expectedQuantity: null },
      '/lines/0/toLocationCode',
    ],
    [
      'both fromLocationCode and fromLocationId',
      { sku: 'WIDGET', fromLocationCode: 'A1', fromLocationId: 'loc_01KH8MP4807D4A2FX90YJXQ7VB', toLocationCode: 'B1', quantity: 1, expectedQuantity: null },
      '/lines/0/fromLocationId',
    ],
    ['a quantity of 0', { sku: 'WIDGET', fromLocationCode: 'A1', toLocationCode: 'B1', quantity: 0, expectedQuantity: null }, '/lines/0/quantity'],
    ['no expectedQuantity', { sku: 'WIDGET', fromLocationCode: 'A1', toLocationCode: 'B1', quantity: 1 }, '/lines/0/expectedQuantity'],
    ['no lot for an item tracked by lot', { sku: 'RESIN', fromLocationCode: 'A1', toLocationCode: 'B1', quantity: 1, expectedQuantity: null }, '/lines/0/lot'],
  ])('answers 400 for %s, pointing at it', async (_what, line, pointer) => {
    const problem = await problemOf(await post('transfers', { reference: 'TR-BAD', lines: [line] }), 400);
    expect(problem.errors?.map((error) => error.pointer)).toContain(pointer);
  });
});

describe('POST /v1/stock/counts', () => {
  it('sets on-hand to what was counted, variances as count movements, and emits count.completed with every line', async () => {
    // Act: GADGET at C1 counted 5 (was 0), WIDGET at C1 counted 1 (as stored: no movement)
    const response = await post('counts', {
      countReference: 'CNT-1',
      locationCode: 'C1',
      lines: [
        { sku: 'GADGET', countedQuantity: 5, expectedQuantity: 0 },
        { sku: 'WIDGET', countedQuantity: 1, expectedQuantity: 1 },
      ],
    });

    // Assess
    const text = await response.text();
    expect(response.status, text).toBe(201);
    const change = JSON.parse(text) as Change;
    expect(change).toMatchObject({ kind: 'count', reference: 'CNT-1' });
    expect(change.lines.map(shape)).toEqual([
      { line: 0, locationCode: 'C1', lot: null, previousQuantity: 0, quantity: 5, delta: 5 },
      { line: 1, locationCode: 'C1', lot: null, previousQuantity: 1, quantity: 1, delta: 0 },
    ]);
    expect(change.lines[0]?.movementId).toMatch(/^mov_/);
    expect(change.lines[1]?.movementId).toBeNull();
    const completed = (await eventsOf('count.completed')).find((event) => event.data.countReference === 'CNT-1');
    expect(completed?.data).toMatchObject({
      countId: expect.stringMatching(/^cnt_/),
      lines: [
        { sku: 'GADGET', expected: 0, counted: 5, delta: 5 },
        { sku: 'WIDGET', expected: 1, counted: 1, delta: 0 },
      ],
    });
  });

  it('answers 409 quantity-stale for a line whose record moved since it was read, and 409 already-applied for a counted line', async () => {
    // Act
    const stale = await post('counts', { countReference: 'CNT-2', locationCode: 'C1', lines: [{ sku: 'GADGET', countedQuantity: 4, expectedQuantity: 0 }] });
    const again = await post('counts', { countReference: 'CNT-1', locationCode: 'C1', lines: [{ sku: 'GADGET', countedQuantity: 4, expectedQuantity: null }] });

    // Assess
    expect(await problemOf(stale, 409)).toMatchObject({
      code: 'customer-api.stock.quantity-stale',
      lines: [{ line: 0, expectedQuantity: 0, currentQuantity: 5 }],
    });
    expect(await problemOf(again, 409)).toMatchObject({
      code: 'customer-api.stock.already-applied',
      lines: [{ line: 0, appliedBy: expect.stringMatching(/^chg_/) }],
    });
    expect(await quantityAt('GADGET', 'C1')).toBe(5);
  });

  it('shares natural keys with the stock-counts import (countReference + sku + lot)', async () => {
    // Act
    const json = await post('counts', { countReference: 'CNT-3', locationCode: 'B1', lines: [{ sku: 'WIDGET', countedQuantity: 3, expectedQuantity: 4 }] });
    const imported = await importAndWait(key, {
      kind: 'stock-counts',
      duplicateStrategy: 'skip',
      file: csv('countReference,locationCode,sku,countedQuantity', 'CNT-3,B1,WIDGET,9'),
    });

    // Assess
    expect(json.status).toBe(201);
    expect(imported.counts).toMatchObject({ skipped: 1, created: 0 });
    expect(await quantityAt('WIDGET', 'B1')).toBe(3);
  });

  it.each([
    [
      'both locationCode and locationId',
      {
        countReference: 'CNT-BAD',
        locationCode: 'C1',
        locationId: 'loc_01KH8MP4807D4A2FX90YJXQ7VB',
        lines: [{ sku: 'WIDGET', countedQuantity: 1, expectedQuantity: null }],
      },
      '/locationId',
    ],
    ['no location', { countReference: 'CNT-BAD', lines: [{ sku: 'WIDGET', countedQuantity: 1, expectedQuantity: null }] }, '/locationId'],
    [
      'an unknown location',
      {
        countReference: 'CNT-BAD',
        locationCode: 'NOPE',
        lines: [
          { sku: 'WIDGET', countedQuantity: 1, expectedQuantity: null },
          { sku: 'GADGET', countedQuantity: 1, expectedQuantity: null },
        ],
      },
      '/locationCode',
    ],
    [
      'a negative countedQuantity',
      { countReference: 'CNT-BAD', locationCode: 'C1', lines: [{ sku: 'WIDGET', countedQuantity: -1, expectedQuantity: null }] },
      '/lines/0/countedQuantity',
    ],
    [
      'a lot on an item not tracked by lot',
      { countReference: 'CNT-BAD', locationCode: 'C1', lines: [{ sku: 'WIDGET', lot: 'L1', countedQuantity: 1, expectedQuantity: null }] },
      '/lines/0/lot',
    ],
  ])('answers 400 for %s, pointing at it once', async (_what, body, pointer) => {
    const problem = await problemOf(await post('counts', body), 400);
    expect(problem.errors?.filter((error) => error.pointer === pointer)).toHaveLength(1);
  });
});

describe('POST /v1/stock/receipts', () => {
  it('receives each line, dated receivedAt, and emits po.received with every line; expectedQuantity is optional', async () => {
    // Act
    const response = await post('receipts', {
      poNumber: 'PO-7',
      receivedAt: '2026-01-05T10:00:00+01:00',
      lines: [
        { sku: 'RESIN', locationCode: 'B1', lot: 'R7', quantity: 2.5 },
        { sku: 'GADGET', locationCode: 'B1', quantity: 3, expectedQuantity: 0 },
      ],
    });

    // Assess
    const text = await response.text();
    expect(response.status, text).toBe(201);
    const change = JSON.parse(text) as Change;
    expect(change).toMatchObject({ kind: 'receipt', reference: 'PO-7' });
    expect(change.lines.map(shape)).toEqual([
      { line: 0, locationCode: 'B1', lot: 'R7', previousQuantity: 0, quantity: 2.5, delta: 2.5 },
      { line: 1, locationCode: 'B1', lot: null, previousQuantity: 0, quantity: 3, delta: 3 },
    ]);
    const received = (await eventsOf('po.received')).find((event) => event.data.poNumber === 'PO-7');
    expect(received?.data).toMatchObject({
      receiptId: expect.stringMatching(/^rcp_/),
      lines: [
        { sku: 'RESIN', quantity: 2.5, lot: 'R7' },
        { sku: 'GADGET', quantity: 3 },
      ],
    });
    const movement = (await eventsOf('movement.created'))
      .map((event) => event.data.movement as { id: string; occurredAt?: string })
      .find((candidate) => candidate.id === change.lines[0]?.movementId);
    expect(movement).toBeDefined();
    const read = (await (await callApi(`/v1/movements/${change.lines[0]?.movementId}`, { key })).json()) as { occurredAt: string };
    expect(read.occurredAt).toBe('2026-01-05T09:00:00.000Z');
  });

  it('shares natural keys with the po-receipts import (poNumber + sku + location + lot), and checks expectedQuantity where given', async () => {
    // Act
    const again = await post('receipts', {
      poNumber: 'PO-0',
      lines: [
        { sku: 'GADGET', locationCode: 'A1', quantity: 1 },
        { sku: 'GADGET', locationCode: 'C1', quantity: 1 },
      ],
    });
    const stale = await post('receipts', { poNumber: 'PO-8', lines: [{ sku: 'GADGET', locationCode: 'B1', quantity: 1, expectedQuantity: 0 }] });

    // Assess
    expect(await problemOf(again, 409)).toMatchObject({
      code: 'customer-api.stock.already-applied',
      lines: [{ line: 0, appliedBy: expect.stringMatching(/^imp_/) }],
    });
    expect(await problemOf(stale, 409)).toMatchObject({
      code: 'customer-api.stock.quantity-stale',
      lines: [{ line: 0, expectedQuantity: 0, currentQuantity: 3 }],
    });
    expect(await quantityAt('GADGET', 'C1')).toBe(5);
  });

  it.each([
    [
      'a receivedAt in the future',
      { poNumber: 'PO-BAD', receivedAt: '2999-01-01T00:00:00Z', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantity: 1 }] },
      '/receivedAt',
    ],
    [
      'a receivedAt that is no date',
      { poNumber: 'PO-BAD', receivedAt: '2026-02-30T00:00:00Z', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantity: 1 }] },
      '/receivedAt',
    ],
    ['a negative quantity', { poNumber: 'PO-BAD', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantity: -1 }] }, '/lines/0/quantity'],
    ['21 lines', { poNumber: 'PO-BAD', lines: Array.from({ length: 21 }, () => ({ sku: 'WIDGET', locationCode: 'A1', quantity: 1 })) }, '/lines'],
  ])('answers 400 for %s, pointing at it', async (_what, body, pointer) => {
    const problem = await problemOf(await post('receipts', body), 400);
    expect(problem.errors?.map((error) => error.pointer)).toContain(pointer);
  });

  it('holds 20 lines in one change', async () => {
    const response = await post('receipts', {
      poNumber: 'PO-20',
      lines: Array.from({ length: 20 }, (_, index) => ({ sku: 'RESIN', locationCode: 'C1', lot: `P20-${index}`, quantity: 1 })),
    });
    const text = await response.text();
    expect(response.status, text).toBe(201);
    expect((JSON.parse(text) as Change).lines).toHaveLength(20);
  });
});

describe('the stock:write scope', () => {
  it.each(['transfers', 'counts', 'receipts'] as const)('guards POST /v1/stock/%s', async (path) => {
    const { key: readOnly } = await createTestKey({ scopes: ['inventory:read'] });
    const response = await post(path, {}, { key: readOnly });
    expect(response.status).toBe(403);
  });
});
