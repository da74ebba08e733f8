import { randomUUID } from 'node:crypto';
import { beforeAll, describe, expect, it } from 'vitest';
import { callApi, createTestKey } from '../support/api.ts';
import { importAndWait } from '../support/imports.ts';

/**
 * Builds as jobs over HTTP against `npm start` (docs/boms.md "Builds"): a build reserves every
 * component, consumes and produces in as many transactions as it needs, and records provenance;
 * a build short anywhere fails with nothing consumed; a reference builds once through either door;
 * what the submission refuses, with its codes.
 */

const csv = (...lines: string[]) => lines.join('\n') + '\n';

interface Build {
  id: string;
  buildReference: string;
  bomId: string;
  revision: { id: string; number: number };
  quantity: number;
  status: string;
  phase: string;
  failure: { code: string; message: string; lines: Array<{ line: number; sku: string; needed: number; available: number }> } | null;
  submittedAt: string;
  completedAt: string | null;
}
interface StockRecord {
  id: string;
  sku: string;
  lot: string | null;
  onHand: number;
  reserved: number;
  available: number;
  locationCode: string;
}

let key: string;
let organizationId: string;
const itemIds = new Map<string, string>();
/** Lots of RESIN received at A1, oldest first: 30 lots of 2 each. */
const RESIN_LOTS = 30;

beforeAll(async () => {
  const created = await createTestKey();
  ({ key } = created);
  organizationId = created.record.organizationId;
  const succeeded = async (kind: string, file: string) =>
    expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file })).status).toBe('succeeded');
  await succeeded(
    'items',
    csv(
      'sku,name,trackingMode,reorderPoint',
      'ASSY,Assembly,none,',
      'ASSYLOT,Assembly by lot,lot,',
      'BOLT,Bolt,none,',
      'NUT,Nut,none,',
      'RESIN,Resin,lot,',
      'RARE,Rare part,none,',
    ),
  );
  await succeeded('locations', csv('code,name,type', 'A1,Bin A1,bin', 'B1,Bin B1,bin'));
  const resinRows = Array.from({ length: RESIN_LOTS }, (_, index) => `PO-R${index},RESIN,A1,2,R${String(index).padStart(2, '0')}`);
  await succeeded(
    'po-receipts',
    csv('poNumber,sku,locationCode,quantity,lot', 'PO-1,BOLT,A1,1000,', 'PO-1,NUT,A1,1000,', 'PO-1,BOLT,B1,50,', 'PO-1,RARE,A1,1,'),
  );
  // One receipt per lot, in order: receipt order is the order a build draws lots in.
  for (let start = 0; start < RESIN_LOTS; start += 10)
    await succeeded('po-receipts', csv('poNumber,sku,locationCode,quantity,lot', ...resinRows.slice(start, start + 10)));
  const items = (await (await callApi('/v1/items?limit=100', { key })).json()) as { data: Array<{ id: string; sku: string }> };
  for (const item of items.data) itemIds.set(item.sku, item.id);
}, 120_000);

function post(path: string, body: unknown, options: { key?: string } = {}) {
  return callApi(path, {
    method: 'POST',
    key: options.key ?? key,
    headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
    body: JSON.stringify(body),
  });
}

const id = (sku: string) => itemIds.get(sku) ?? '';

async function bomOf(target: string, components: Array<{ sku: string; quantity: number; scrapPercent?: number }>): Promise<{ id: string; code: string }> {
  const code = `BOM-${randomUUID().slice(0, 8)}`;
  const response = await post('/v1/boms', {
    code,
    name: 'Assembly',
    targetItemId: id(target),
    status: 'active',
    components: components.map((line) => ({
      itemId: id(line.sku),
      quantity: line.quantity,
      ...(line.scrapPercent === undefined ? {} : { scrapPercent: line.scrapPercent }),
    })),
  });
  const text = await response.text();
  expect(response.status, text).toBe(201);
  return { id: (JSON.parse(text) as { id: string }).id, code };
}

async function submitted(body: Record<string, unknown>): Promise<Build> {
  const response = await post('/v1/builds', body);
  const text = await response.text();
  expect(response.status, text).toBe(202);
  const build = JSON.parse(text) as Build;
  expect(response.headers.get('location')).toBe(`/v1/builds/${build.id}`);
  expect(build).toMatchObject({ status: 'queued', phase: 'reserve', failure: null, completedAt: null });
  return build;
}

async function finished(buildId: string, timeoutMs = 60_000): Promise<Build> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const build = (await (await callApi(`/v1/builds/${buildId}`, { key })).json()) as Build;
    if (build.status === 'succeeded' || build.status === 'failed') return build;
    if (Date.now() > deadline) throw new Error(`Build ${buildId} still ${build.status} (${build.phase})`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function stockOf(sku: string, locationCode = 'A1'): Promise<StockRecord[]> {
  const page = (await (await callApi(`/v1/stock-records?itemId=${id(sku)}&limit=100`, { key })).json()) as { data: StockRecord[] };
  return page.data.filter((record) => record.locationCode === locationCode);
}

const onHandOf = async (sku: string, locationCode = 'A1') => (await stockOf(sku, locationCode)).reduce((sum, record) => sum + record.onHand, 0);

async function problemOf(
  response: Response,
  status: number,
): Promise<{ code: string; errors?: Array<{ pointer: string; code: string }> } & Record<string, unknown>> {
  const text = await response.text();
  expect(response.status, text).toBe(status);
  return JSON.parse(text);
}

describe('POST /v1/builds', () => {
  it('reserves, consumes from named sources and oldest lots across several transactions, produces, and records provenance', async () => {
    // RESIN: 2.5 per unit × 10 = 25 → 13 lots (12 × 2 + 1): more draws than one slice holds.
    const bom = await bomOf('ASSY', [
      { sku: 'BOLT', quantity: 4 },
      { sku: 'NUT', quantity: 2, scrapPercent: 10 },
      { sku: 'RESIN', quantity: 2.5 },
    ]);
    const [boltsAtA1, boltsAtB1, nutsBefore] = [await onHandOf('BOLT'), await onHandOf('BOLT', 'B1'), await onHandOf('NUT')];
    const build = await submitted({
      buildReference: `B-${randomUUID()}`,
      bomCode: bom.code,
      quantity: 10,
      locationCode: 'A1',
      sources: [{ sku: 'BOLT', locationCode: 'B1' }, { sku: 'BOLT' }],
    });
    expect(build.bomId).toBe(bom.id);
    const done = await finished(build.id);
    expect(done).toMatchObject({ status: 'succeeded', phase: 'done', failure: null });
    expect(done.completedAt).not.toBeNull();

    // BOLT: 40, the first 40 of B1's 50 (sources are drawn in order); NUT: 2 × 10 × 1.1 = 22.
    expect(await onHandOf('BOLT', 'B1')).toBe(boltsAtB1 - 40);
    expect(await onHandOf('BOLT')).toBe(boltsAtA1);
    expect(await onHandOf('NUT')).toBe(nutsBefore - 22);
    const resin = await stockOf('RESIN');
    // Oldest lots first: the first receipt's ten lots are drained whole (lots received in one import share their receipt time).
    const drained = resin.filter((record) => record.onHand === 0).map((record) => record.lot);
    expect(drained).toHaveLength(12);
    expect(drained).toEqual(expect.arrayContaining(Array.from({ length: 10 }, (_, index) => `R${String(index).padStart(2, '0')}`)));
    expect(resin.filter((record) => record.onHand === 1)).toHaveLength(1);
    for (const record of [...resin, ...(await stockOf('BOLT', 'B1')), ...(await stockOf('NUT'))]) expect(record.reserved).toBe(0);
    expect(await onHandOf('ASSY')).toBeGreaterThanOrEqual(10);

    // Provenance: every lot drawn lists the build.
    const lot = resin.find((record) => record.lot === 'R05');
    expect(lot).toBeDefined();
    const builds = (await (await callApi(`/v1/boms/${bom.id}/builds?sourceStockRecordId=${lot?.id}`, { key })).json()) as {
      data: Array<{ id: string; consumed: unknown[]; reference: string }>;
    };
    expect(builds.data.map((entry) => entry.id)).toEqual([build.id]);
    expect(builds.data[0]?.consumed).toHaveLength(1 + 1 + 13);

    // The feed: the build's movements in commit order, consumption before production, and the holds' stock.changed naming the build.
    const feed = (await (await callApi('/v1/events?type=movement.created&limit=200', { key })).json()) as {
      data: Array<{ data: { movement: { type: string; reference: string } } }>;
    };
    const types = feed.data.filter((event) => event.data.movement.reference === build.buildReference).map((event) => event.data.movement.type);
    expect(types).toEqual([...Array.from({ length: 15 }, () => 'consumption'), 'production']);
    const changes = (await (await callApi('/v1/events?type=stock.changed&limit=200', { key })).json()) as {
      data: Array<{ data: { reservationId: string | null; delta: number } }>;
    };
    expect(changes.data.filter((event) => event.data.reservationId === build.id && event.data.delta === 0)).toHaveLength(15);
  });

  it('builds a BOM of 500 lines: exact on-hand afterwards, nothing left reserved, every source traced', async () => {
    const skus = Array.from({ length: 500 }, (_, index) => `P500-${String(index).padStart(3, '0')}`);
    const succeeded = async (kind: string, file: string) =>
      expect((await importAndWait(key, { kind, duplicateStrategy: 'fail', file }, 120_000)).status).toBe('succeeded');
    await succeeded('items', csv('sku,name,trackingMode', 'P500-OUT,Big assembly,none', ...skus.map((sku) => `${sku},Part ${sku},none`)));
    await succeeded('po-receipts', csv('poNumber,sku,locationCode,quantity', ...skus.map((sku, index) => `PO-500,${sku},A1,${10 + (index % 7)}`)));
    const ids = new Map<string, string>();
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = (await (await callApi(`/v1/items?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key })).json()) as {
        data: Array<{ id: string; sku: string }>;
        page: { nextCursor: string | null };
      };
      for (const item of page.data) ids.set(item.sku, item.id);
      cursor = page.page.nextCursor;
    }
    const code = `BOM500-${randomUUID().slice(0, 8)}`;
    const created = await post('/v1/boms', {
      code,
      name: 'Big',
      targetItemId: ids.get('P500-OUT'),
      status: 'active',
      components: skus.map((sku, index) => ({ itemId: ids.get(sku), quantity: 1 + (index % 3) })),
    });
    expect(created.status, await created.clone().text()).toBe(201);

    const build = await submitted({ buildReference: `B500-${randomUUID()}`, bomCode: code, quantity: 2, locationCode: 'A1' });
    expect(await finished(build.id, 120_000)).toMatchObject({ status: 'succeeded', failure: null });
    const records = new Map<string, StockRecord>();
    for (let cursor: string | null = ''; cursor !== null;) {
      const page = (await (await callApi(`/v1/stock-records?limit=200${cursor ? `&cursor=${cursor}` : ''}`, { key })).json()) as {
        data: StockRecord[];
        page: { nextCursor: string | null };
      };
      for (const record of page.data) records.set(record.sku, record);
      cursor = page.page.nextCursor;
    }
    skus.forEach((sku, index) => expect(records.get(sku), sku).toMatchObject({ onHand: 10 + (index % 7) - 2 * (1 + (index % 3)), reserved: 0 }));
    expect(records.get('P500-OUT')).toMatchObject({ onHand: 2, reserved: 0 });
    const last = records.get(skus[499] ?? '');
    const traced = (await (
      await callApi(`/v1/boms/${((await created.json()) as { id: string }).id}/builds?sourceStockRecordId=${last?.id}`, { key })
    ).json()) as { data: Array<{ id: string; consumed: unknown[] }> };
    expect(traced.data.map((entry) => [entry.id, entry.consumed.length])).toEqual([[build.id, 500]]);
  }, 240_000);

  it('fails a build short anywhere with insufficient-stock naming each short line, nothing consumed or held', async () => {
    const bom = await bomOf('ASSY', [
      { sku: 'BOLT', quantity: 1 },
      { sku: 'RARE', quantity: 1 },
      { sku: 'NUT', quantity: 1 },
    ]);
    const [bolts, rare] = [await onHandOf('BOLT'), await onHandOf('RARE')];
    const buildReference = `B-${randomUUID()}`;
    const done = await finished((await submitted({ buildReference, bomId: bom.id, quantity: 3, locationCode: 'A1' })).id);
    expect(done.status).toBe('failed');
    expect(done.failure?.code).toBe('insufficient-stock');
    expect(done.failure?.lines).toEqual([{ line: 1, itemId: id('RARE'), sku: 'RARE', needed: 3, available: 1 }]);
    expect(await onHandOf('BOLT')).toBe(bolts);
    expect(await onHandOf('RARE')).toBe(rare);
    for (const record of [...(await stockOf('BOLT')), ...(await stockOf('RARE'))]) expect(record.reserved).toBe(0);
    // A failed build built nothing: its reference may be submitted again, as a new build (with a
    // second key of the organization: this file's submissions would pass one key's rate limit).
    const { key: second } = await createTestKey({ organizationId });
    const again = (await post('/v1/builds', { buildReference, bomId: bom.id, quantity: 1, locationCode: 'A1' }, { key: second }).then((response) =>
      response.json(),
    )) as Build;
    expect(again).toMatchObject({ buildReference, status: 'queued' });
    expect(again.id).not.toBe(done.id);
    expect((await finished(again.id)).status).toBe('succeeded');
  });

  it('builds a reference once: a second submission is 409 reference-taken, and an import of it is already applied', async () => {
    const bom = await bomOf('ASSY', [{ sku: 'NUT', quantity: 1 }]);
    const buildReference = `B-${randomUUID()}`;
    const build = await submitted({ buildReference, bomCode: bom.code, quantity: 1, locationCode: 'A1' });
    const problem = await problemOf(await post('/v1/builds', { buildReference, bomCode: bom.code, quantity: 1, locationCode: 'A1' }), 409);
    expect(problem).toMatchObject({ code: 'customer-api.builds.reference-taken', buildReference, buildId: build.id });
    await finished(build.id);
    const nuts = await onHandOf('NUT');
    const job = await importAndWait(key, {
      kind: 'builds',
      duplicateStrategy: 'skip',
      file: csv('buildReference,bomCode,quantity,locationCode', `${buildReference},${bom.code},1,A1`),
    });
    expect(job.status).toBe('succeeded');
    expect(await onHandOf('NUT')).toBe(nuts);
  });

  it('refuses what it cannot use with 400 and the field of each problem', async () => {
    const bom = await bomOf('ASSYLOT', [{ sku: 'NUT', quantity: 1 }]);
    const refused = async (body: Record<string, unknown>) =>
      (await problemOf(await post('/v1/builds', { buildReference: `B-${randomUUID()}`, quantity: 1, ...body }), 400)).errors?.map((error) => [
        error.pointer,
        error.code,
      ]);
    expect(await refused({ bomCode: 'NO-SUCH-BOM', locationCode: 'NOWHERE' })).toEqual([
      ['/bomCode', 'unknown-bom'],
      ['/locationCode', 'unknown-location'],
    ]);
    expect(await refused({ bomCode: bom.code, locationCode: 'A1' })).toEqual([['/outputLot', 'lot-required']]);
    expect(
      await refused({ bomCode: bom.code, locationCode: 'A1', outputLot: 'OUT-1', sources: [{ sku: 'BOLT' }, { sku: 'NUT', lot: 'X' }, { sku: 'NO-SUCH' }] }),
    ).toEqual([
      ['/sources/0', 'not-a-component'],
      ['/sources/1/lot', 'lot-not-allowed'],
      ['/sources/2/sku', 'unknown-item'],
    ]);
    expect(await refused({ bomCode: bom.code, locationCode: 'A1', outputLot: 'OUT-1', sources: [{ sku: 'NUT' }, { sku: 'NUT' }] })).toEqual([
      ['/sources/1', 'duplicate-source'],
    ]);
    // The contract: one of bomId and bomCode, a positive quantity.
    expect(
      (await problemOf(await post('/v1/builds', { buildReference: 'B-x', bomCode: bom.code, bomId: bom.id, quantity: 0, locationCode: 'A1' }), 400)).code,
    ).toBe('customer-api.validation.failed');
  });

  it('answers 404 for a build of another organization', async () => {
    const bom = await bomOf('ASSY', [{ sku: 'NUT', quantity: 1 }]);
    const build = await submitted({ buildReference: `B-${randomUUID()}`, bomCode: bom.code, quantity: 1, locationCode: 'A1' });
    const { key: other } = await createTestKey();
    expect((await problemOf(await callApi(`/v1/builds/${build.id}`, { key: other }), 404)).code).toBe('customer-api.builds.not-found');
    await finished(build.id);
  });
});
