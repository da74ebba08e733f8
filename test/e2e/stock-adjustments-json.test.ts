import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';

/**
 * `POST /v1/stock/adjustments` and `GET /v1/stock/changes/{id}` over HTTP against `npm start`
 * (docs/inventory.md "Writing stock over JSON"): the change and its read-back, the idempotent
 * replay, compare-and-set, insufficient stock, natural keys shared with the import kind, the 400s
 * and the scope.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

interface Change {
  id: string;
  kind: string;
  reference: string;
  lines: Array<{ line: number; stockRecordId: string; previousQuantity: number; quantity: number; delta: number; lot: string | null }>;
}

let key: string;

beforeAll(async () => {
  ({ key } = await createTestKey());
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded('items', csv('sku,name,trackingMode', 'WIDGET,Widget,none', 'RESIN,Resin,lot', 'GADGET,Gadget,none'));
  await succeeded('locations', csv('code,name,type', 'A1,Bin A1,bin', 'B1,Bin B1,bin'));
  await succeeded('po-receipts', csv('poNumber,sku,locationCode,quantity', 'PO-1,WIDGET,A1,10', 'PO-1,GADGET,A1,2'));
});

function adjust(body: unknown, options: { idempotencyKey?: string; key?: string } = {}) {
  return callApi('/v1/stock/adjustments', {
    method: 'POST',
    key: options.key ?? key,
    headers: { 'content-type': 'application/json', 'idempotency-key': options.idempotencyKey ?? randomUUID() },
    body: JSON.stringify(body),
  });
}

async function quantityAt(sku: string, locationCode: string): Promise<number> {
  const items = (await (await callApi(`/v1/items?sku=${sku}`, { key })).json()) as { data: Array<{ id: string }> };
  const records = (await (await callApi(`/v1/stock-records?itemId=${items.data[0]?.id}`, { key })).json()) as {
    data: Array<{ locationCode: string; quantity: number }>;
  };
  return records.data.find((record) => record.locationCode === locationCode)?.quantity ?? 0;
}

describe('POST /v1/stock/adjustments', () => {
  it('applies the lines and answers 201 with the change, which GET /v1/stock/changes/{id} reads back; a replay is byte for byte', async () => {
    // Act
    const idempotencyKey = randomUUID();
    const body = {
      reference: 'ORDER-1',
      reason: 'sale',
      lines: [
        { sku: 'WIDGET', locationCode: 'A1', quantityDelta: -3, expectedQuantity: 10 },
        { sku: 'RESIN', locationCode: 'B1', lot: 'L1', quantityDelta: 4, expectedQuantity: 0 },
      ],
    };
    const response = await adjust(body, { idempotencyKey });
    const text = await response.text();
    const replay = await adjust(body, { idempotencyKey });

    // Assess
    expect(response.status, text).toBe(201);
    const change = JSON.parse(text) as Change;
    expect(change).toMatchObject({ kind: 'adjustment', reference: 'ORDER-1' });
    expect(change.lines.map(({ line, previousQuantity, quantity, delta, lot }) => ({ line, previousQuantity, quantity, delta, lot }))).toEqual([
      { line: 0, previousQuantity: 10, quantity: 7, delta: -3, lot: null },
      { line: 1, previousQuantity: 0, quantity: 4, delta: 4, lot: 'L1' },
    ]);
    expect(response.headers.get('location')).toBe(`/v1/stock/changes/${change.id}`);
    const read = await callApi(`/v1/stock/changes/${change.id}`, { key });
    expect(read.status).toBe(200);
    expect(await read.json()).toEqual(change);
    expect(replay.status).toBe(201);
    expect(await replay.text()).toBe(text);
    expect(await quantityAt('WIDGET', 'A1')).toBe(7);
  });

  it('answers 409 quantity-stale with every stale line and moves nothing', async () => {
    // Act
    const response = await adjust({
      reference: 'ORDER-2',
      lines: [
        { sku: 'WIDGET', locationCode: 'A1', quantityDelta: -1, expectedQuantity: 10 },
        { sku: 'GADGET', locationCode: 'A1', quantityDelta: -1, expectedQuantity: 2 },
        { sku: 'GADGET', locationCode: 'B1', quantityDelta: 1, expectedQuantity: 5 },
      ],
    });

    // Assess
    expect(response.status).toBe(409);
    const problem = (await response.json()) as { code: string; lines: unknown[] };
    expect(problem.code).toBe('customer-api.stock.quantity-stale');
    expect(problem.lines).toEqual([
      { line: 0, stockRecordId: expect.stringMatching(/^stk_/), expectedQuantity: 10, currentQuantity: 7 },
      { line: 2, stockRecordId: null, expectedQuantity: 5, currentQuantity: 0 },
    ]);
    expect(await quantityAt('GADGET', 'A1')).toBe(2);
  });

  it('answers 409 insufficient-stock with each short line, lines applied in order', async () => {
    // Act
    const response = await adjust({
      reference: 'ORDER-3',
      lines: [
        { sku: 'GADGET', locationCode: 'A1', quantityDelta: -2, expectedQuantity: null },
        { sku: 'GADGET', locationCode: 'A1', quantityDelta: -1, expectedQuantity: null },
      ],
    });

    // Assess
    expect(response.status).toBe(409);
    const problem = (await response.json()) as { code: string; lines: unknown[] };
    expect(problem).toMatchObject({ code: 'customer-api.stock.insufficient-stock', lines: [{ line: 1, available: 0, requested: 1 }] });
    expect(await quantityAt('GADGET', 'A1')).toBe(2);
  });

  it('shares natural keys with the stock-adjustments import: a reference applied by either door moves stock once', async () => {
    // Prepare: an imported row with reference IMP-1
    expect(
      (
        await importAndWait(key, {
          kind: 'stock-adjustments',
          duplicateStrategy: 'fail',
          file: csv('reference,sku,locationCode,quantityDelta', 'IMP-1,GADGET,A1,1'),
        })
      ).status,
    ).toBe('succeeded');

    // Act
    const again = await adjust({ reference: 'IMP-1', lines: [{ sku: 'GADGET', locationCode: 'A1', quantityDelta: 1, expectedQuantity: null }] });
    const json = await adjust({ reference: 'JSON-1', lines: [{ sku: 'GADGET', locationCode: 'A1', quantityDelta: 1, expectedQuantity: 3 }] });
    const imported = await importAndWait(key, {
      kind: 'stock-adjustments',
      duplicateStrategy: 'skip',
      file: csv('reference,sku,locationCode,quantityDelta', 'JSON-1,GADGET,A1,1'),
    });

    // Assess
    expect(again.status).toBe(409);
    expect(await again.json()).toMatchObject({ code: 'customer-api.stock.already-applied', lines: [{ line: 0, appliedBy: expect.stringMatching(/^imp_/) }] });
    expect(json.status).toBe(201);
    expect(imported.counts).toMatchObject({ skipped: 1, created: 0 });
    expect(await quantityAt('GADGET', 'A1')).toBe(4);
  });

  it.each([
    ['an unknown sku', { sku: 'NOPE', locationCode: 'A1', quantityDelta: 1, expectedQuantity: null }, '/lines/0/sku'],
    [
      'both sku and itemId',
      { sku: 'WIDGET', itemId: 'itm_01KH8MP4807D4A2FX90YJXQ7VB', locationCode: 'A1', quantityDelta: 1, expectedQuantity: null },
      '/lines/0/itemId',
    ],
    ['a quantityDelta of 0', { sku: 'WIDGET', locationCode: 'A1', quantityDelta: 0, expectedQuantity: null }, '/lines/0/quantityDelta'],
    ['no expectedQuantity', { sku: 'WIDGET', locationCode: 'A1', quantityDelta: 1 }, '/lines/0/expectedQuantity'],
    ['a lot on an item not tracked by lot', { sku: 'WIDGET', locationCode: 'A1', lot: 'L1', quantityDelta: 1, expectedQuantity: null }, '/lines/0/lot'],
  ])('answers 400 for %s, pointing at it', async (_what, line, pointer) => {
    const response = await adjust({ reference: 'BAD-1', lines: [line] });
    expect(response.status).toBe(400);
    const problem = (await response.json()) as { errors: Array<{ pointer: string }> };
    expect(problem.errors.map((error) => error.pointer)).toContain(pointer);
  });

  it('holds 20 lines on stored records in one change and refuses 21', async () => {
    // Prepare: 20 adjustments of +1 on the stored WIDGET record, one line per own lot-free record is not needed
    const line = { sku: 'WIDGET', locationCode: 'A1', quantityDelta: 1, expectedQuantity: null };

    // Act
    const twenty = await adjust({ reference: 'BULK-20', lines: Array.from({ length: 20 }, () => line) });
    const twentyOne = await adjust({ reference: 'BULK-21', lines: Array.from({ length: 21 }, () => line) });

    // Assess
    expect(twenty.status, await twenty.clone().text()).toBe(201);
    expect(twentyOne.status).toBe(400);
  });

  it('holds 20 lines that each create a stock record (the records first, at 0, then the change)', async () => {
    // Act
    const response = await adjust({
      reference: 'NEW-LOTS',
      lines: Array.from({ length: 20 }, (_, index) => ({ sku: 'RESIN', locationCode: 'A1', lot: `N-${index}`, quantityDelta: index + 1, expectedQuantity: 0 })),
    });

    // Assess
    const text = await response.text();
    expect(response.status, text).toBe(201);
    const change = JSON.parse(text) as Change;
    expect(change.lines.map(({ lot, previousQuantity, quantity }) => [lot, previousQuantity, quantity])).toEqual(
      Array.from({ length: 20 }, (_, index) => [`N-${index}`, 0, index + 1]),
    );
    const items = (await (await callApi('/v1/items?sku=RESIN', { key })).json()) as { data: Array<{ id: string }> };
    const records = (await (await callApi(`/v1/stock-records?itemId=${items.data[0]?.id}&limit=200`, { key })).json()) as {
      data: Array<{ lot: string; quantity: number }>;
    };
    expect(records.data.filter((record) => record.lot.startsWith('N-')).reduce((sum, record) => sum + record.quantity, 0)).toBe(210);
  });

  it('needs the stock:write scope', async () => {
    const { key: readOnly } = await createTestKey({ scopes: ['inventory:read'] });
    const response = await adjust(
      { reference: 'SCOPE-1', lines: [{ sku: 'WIDGET', locationCode: 'A1', quantityDelta: 1, expectedQuantity: null }] },
      { key: readOnly },
    );
    expect(response.status).toBe(403);
  });
});

describe('GET /v1/stock/changes/{id}', () => {
  it('answers 404 for an id of no change of the organization', async () => {
    const response = await callApi('/v1/stock/changes/chg_01KH8MP4807D4A2FX90YJXQ7VB', { key });
    expect(response.status).toBe(404);
  });
});

describe('compare-and-set under concurrent clients', () => {
  it('of 5 clients that read the same quantity and decrement it at once, exactly one succeeds per round; no update is lost', async () => {
    // Prepare: 50 of GADGET at B1
    expect((await adjust({ reference: 'SEED-CAS', lines: [{ sku: 'GADGET', locationCode: 'B1', quantityDelta: 50, expectedQuantity: 0 }] })).status).toBe(201);
    let quantity = 50;

    for (let round = 0; round < 3; round += 1) {
      // Act
      const responses = await Promise.all(
        Array.from({ length: 5 }, (_, client) =>
          adjust({ reference: `CAS-${round}-${client}`, lines: [{ sku: 'GADGET', locationCode: 'B1', quantityDelta: -1, expectedQuantity: quantity }] }),
        ),
      );

      // Assess
      const statuses = responses.map((response) => response.status).sort();
      expect(statuses).toEqual([201, 409, 409, 409, 409]);
      for (const response of responses.filter((candidate) => candidate.status === 409)) {
        expect(await response.json()).toMatchObject({
          code: 'customer-api.stock.quantity-stale',
          lines: [{ line: 0, expectedQuantity: quantity, currentQuantity: quantity - 1 }],
        });
      }
      quantity -= 1;
    }
    expect(await quantityAt('GADGET', 'B1')).toBe(47);
  });
});
