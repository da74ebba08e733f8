import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainDependencies } from '../../lib/app/composition.ts';
import { counterExpiresAt, windowStartOf } from '../../lib/platform/rate-limit/fixed-window.ts';
import { newMovementId } from '../../lib/inventory/domain/stock.ts';
import { dynamoClient } from '../../lib/platform/aws/dynamodb-client.ts';
import { routeById, type RouteId } from '../../lib/app/routes.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { createTestKey } from '../support/api.ts';
import { countDynamoDbRequests, type RequestCounter } from '../../local/dynamodb-requests.ts';
import { itemsOf, rawMultipart } from '../support/imports.ts';
import { apiGatewayEvent, invocationContext, type EventRequest } from '../../local/api-gateway-events.ts';
import { ROUTE_GRANTS } from '../../infra/grants.ts';
import { awaitWindowWithAtLeast } from '../support/rate-limit-window.ts';
import { worstCaseBomBody, worstCaseUnit } from '../support/bom-worst-case.ts';

/**
 * DynamoDB requests per API call (docs/performance.md "Requests per call"), counted at the SDK
 * client on a warm container: the handlers run in this process against the local stack, after
 * one earlier call has warmed the API key cache and the organization's sequence hint.
 *
 * The general rate limit is spent from this container's leased block of tokens (docs/api-guide.md
 * "Rate limits"), so whether a call writes the counter depends on the block: each count below is
 * measured in a stated block state — a token held (the steady state: no write), or none left (the
 * call leases: one UpdateItem) — reached by repeating the warm call until the lease book says so.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

let counter: RequestCounter;
let tenant: { key: string; keyId: string; organizationId: string; itemIds: string[] };
let exportId = '';
let bomId = '';
let jobId = '';
/** One record of each inventory read: an item, a location, a stock record, a movement. */
let inventoryIds = { item: '', location: '', stockRecord: '', movement: '' };

async function invoke(operationId: RouteId, request: Omit<EventRequest, 'key'> = {}) {
  const route = routeById(operationId);
  const handler = await loadHandler<Handler>(route.handler);
  const event = apiGatewayEvent(route, { ...request, key: tenant.key });
  return handler(event, invocationContext(event));
}

/** General tokens this process (the container) holds for the tenant's key in the current window. */
function heldGeneralTokens(): number {
  const windowStartEpochSeconds = windowStartOf(Date.now(), 60);
  const window = { windowSeconds: 60, windowStartEpochSeconds, expiresAtEpochSeconds: counterExpiresAt(windowStartEpochSeconds, 60) };
  return chainDependencies.rateLimits.heldTokens(tenant.keyId, window, 'general');
}

/**
 * The requests of one warm call, after the same call ran at least once and until this container's
 * block is in `block` state: a token `held` for the measured call, or `spent` (it must lease).
 */
async function requestsOf(operationId: RouteId, request: () => Omit<EventRequest, 'key'>, expectedStatus: number, block: 'held' | 'spent' = 'held') {
  // Warm-up and measurement within one window: a reset would empty the block in between.
  await awaitWindowWithAtLeast(10);
  for (let warmUps = 1; ; warmUps += 1) {
    const warm = await invoke(operationId, request());
    expect(warm.statusCode, String(warm.body)).toBe(expectedStatus);
    if (heldGeneralTokens() > 0 === (block === 'held')) break;
    // A block holds at most 50 tokens: past that many calls the state can no longer come.
    if (warmUps > 50) throw new Error(`No ${block} block after ${warmUps} warm calls`);
  }
  counter.reset();
  const measured = await invoke(operationId, request());
  expect(measured.statusCode, String(measured.body)).toBe(expectedStatus);
  const operations = counter.operations();
  // Local runs do not enforce IAM: every call counted must be one its grant allows (infra/grants.ts), or AWS denies it.
  const granted = new Set(Object.values(ROUTE_GRANTS[operationId].tables).flatMap((table) => table?.calls ?? []));
  expect(
    operations.filter((operation) => operation !== 'TransactWriteItems' && !granted.has(operation as never)),
    `calls ${operationId}'s grant lacks`,
  ).toEqual([]);
  return operations;
}

const bomBody = () =>
  JSON.stringify({
    code: `BOM-${randomUUID().slice(0, 8)}`,
    name: 'Frame',
    targetItemId: tenant.itemIds[0],
    components: [{ itemId: tenant.itemIds[1], quantity: 2 }],
  });
/** A multipart import of `rows` (CSV lines after the header), base64 as API Gateway passes it. */
function importBody(rows: string, kind = 'items', header = 'sku,name'): Omit<EventRequest, 'key'> {
  const multipart = rawMultipart([
    { name: 'kind', value: kind },
    { name: 'duplicateStrategy', value: 'skip' },
    { name: 'file', value: `${header}\n${rows}`, fileName: `${kind}.csv` },
  ]);
  return { body: multipart.body.toString('base64'), headers: { 'content-type': multipart.contentType, 'idempotency-key': randomUUID() }, base64: true };
}
const writeHeaders = () => ({ 'idempotency-key': randomUUID(), 'content-type': 'application/json' });

/** Submits an import through the in-process handlers and waits until it succeeded (the stack's worker runs the job); its job id. */
async function importAndWait(body: Omit<EventRequest, 'key'>): Promise<string> {
  const submitted = await invoke('submitImportJob', body);
  expect(submitted.statusCode, String(submitted.body)).toBe(202);
  const id = (JSON.parse(String(submitted.body)) as { id: string }).id;
  for (let waited = 0; ; waited += 100) {
    const job = await invoke('getImportJob', { path: `/v1/imports/jobs/${id}` });
    if ((JSON.parse(String(job.body)) as { status: string }).status === 'succeeded') return id;
    if (waited > 60_000) throw new Error(`The import ${id} did not succeed within 60 s: ${String(job.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function firstIdOf(operationId: RouteId): Promise<string> {
  const page = await invoke(operationId, { query: 'limit=1' });
  return (JSON.parse(String(page.body)) as { data: Array<{ id: string }> }).data[0]?.id ?? '';
}

beforeAll(async () => {
  const created = await createTestKey();
  tenant = { key: created.key, keyId: created.record.keyId, organizationId: created.record.organizationId, itemIds: [] };
  // Two items to name in BOMs, a location and a receipt of stock for the inventory reads.
  jobId = await importAndWait(importBody('RC-A,Frame\nRC-B,Bolt\n'));
  await importAndWait(importBody('RC-L1,Bin\n', 'locations', 'code,name'));
  await importAndWait(importBody('RC-PO,RC-A,RC-L1,5\n', 'po-receipts', 'poNumber,sku,locationCode,quantity'));
  inventoryIds = {
    item: await firstIdOf('listItems'),
    location: await firstIdOf('listLocations'),
    stockRecord: await firstIdOf('listStockRecords'),
    movement: await firstIdOf('listMovements'),
  };
  const stored = await itemsOf(created.record.organizationId, ['RC-A', 'RC-B']);
  tenant.itemIds = ['RC-A', 'RC-B'].map((sku) => stored.get(sku)?.record.id ?? '');
  counter = countDynamoDbRequests(dynamoClient);
  const bom = await invoke('createBom', { body: bomBody(), headers: writeHeaders() });
  expect(bom.statusCode, String(bom.body)).toBe(201);
  bomId = (JSON.parse(String(bom.body)) as { id: string }).id;
  const exported = await invoke('submitExport', {
    body: JSON.stringify({ kind: 'locations' }),
    headers: { ...writeHeaders(), 'content-type': 'application/json' },
  });
  expect(exported.statusCode, String(exported.body)).toBe(202);
  exportId = (JSON.parse(String(exported.body)) as { id: string }).id;
}, 120_000);
afterAll(() => counter?.stop());

describe('DynamoDB requests per warm API call', () => {
  it.each([
    ['listEvents', () => ({ query: 'limit=50' }), ['Query']],
    ['listAuditEvents', () => ({ query: 'limit=50' }), ['Query']],
    ['getImportJob', () => ({ path: `/v1/imports/jobs/${jobId}` }), ['GetItem']],
    ['getBom', () => ({ path: `/v1/boms/${bomId}` }), ['GetItem']],
    ['listLocations', () => ({ query: 'code=RC-L1' }), ['Query']],
    ['getLocation', () => ({ path: `/v1/locations/${inventoryIds.location}` }), ['GetItem']],
    ['getStockRecord', () => ({ path: `/v1/stock-records/${inventoryIds.stockRecord}` }), ['GetItem']],
    ['listMovements', () => ({ query: `itemId=${inventoryIds.item}&fromUtc=2000-01-01T00:00:00Z` }), ['Query']],
    ['getMovement', () => ({ path: `/v1/movements/${inventoryIds.movement}` }), ['GetItem']],
    ['listWebhookEndpoints', () => ({ query: 'limit=50' }), ['Query']],
    ['getExport', () => ({ path: `/v1/exports/${exportId}` }), ['GetItem']],
  ] as const)('%s within a leased block: the domain read only, 1 request', async (operationId, request, expected) => {
    expect(await requestsOf(operationId, request, 200)).toEqual(expected);
  });

  it.each([
    ['all', () => ({ query: 'limit=50' })],
    ['nonZero', () => ({ query: `locationId=${inventoryIds.location}&nonZero=true` })],
  ] as const)(
    'listStockRecords (%s) within a leased block: the Query of the entries and one BatchGetItem of their records, 2 requests',
    async (_filter, request) => {
      // The entries hold keys only; a page reads its records by id (docs/inventory.md "Reading inventory").
      expect(await requestsOf('listStockRecords', request, 200)).toEqual(['Query', 'BatchGetItem']);
    },
  );

  it.each([
    ['all', () => ({ query: 'limit=50' })],
    ['q', () => ({ query: 'q=rc&limit=50' })],
  ] as const)("listItems (%s) within a leased block: the Query of the page and one BatchGetItem of its items' totals, 2 requests", async (_filter, request) => {
    // The entries hold the items, not their totals, which change with every stock write (docs/inventory.md "Reading inventory").
    expect(await requestsOf('listItems', request, 200)).toEqual(['Query', 'BatchGetItem']);
  });

  it('getItem within a leased block: the item and its total in one BatchGetItem, 1 request', async () => {
    expect(await requestsOf('getItem', () => ({ path: `/v1/items/${inventoryIds.item}` }), 200)).toEqual(['BatchGetItem']);
  });

  it("getItemAvailability within a leased block: the Query of the item's stock-record entries, then one BatchGetItem of the item, its total and its records, 2 requests", async () => {
    expect(await requestsOf('getItemAvailability', () => ({ path: `/v1/items/${inventoryIds.item}/availability` }), 200)).toEqual(['Query', 'BatchGetItem']);
  });

  it('getItemAvailability of an unknown item: the same 2 requests, nothing found; of an id of another type: none', async () => {
    expect(await requestsOf('getItemAvailability', () => ({ path: '/v1/items/itm_0000000000000000000000/availability' }), 404)).toEqual([
      'Query',
      'BatchGetItem',
    ]);
    expect(await requestsOf('getItemAvailability', () => ({ path: `/v1/items/${inventoryIds.location}/availability` }), 404)).toEqual([]);
  });

  it('getMovement of an id of no movement: the key its time gives, then where older code stored movements, 2 requests', async () => {
    expect(await requestsOf('getMovement', () => ({ path: `/v1/movements/${newMovementId('2026-11-22T10:00:00.000Z')}` }), 404)).toEqual([
      'GetItem',
      'GetItem',
    ]);
  });

  it('getBom when its block is spent: the domain read and one lease of the counter, 2 requests', async () => {
    expect((await requestsOf('getBom', () => ({ path: `/v1/boms/${bomId}` }), 200, 'spent')).sort()).toEqual(['GetItem', 'UpdateItem']);
  });

  it('renderBarcode within a leased block: no request at all', async () => {
    expect(await requestsOf('renderBarcode', () => ({ query: 'payload=RC-1' }), 200)).toEqual([]);
  });

  it('createBom within a leased block: idempotency claim and the transaction, 2 requests', async () => {
    const operations = await requestsOf('createBom', () => ({ body: bomBody(), headers: writeHeaders() }), 201);
    // The idempotency claim, then the transaction (which also checks the named items).
    expect(operations).toEqual(['PutItem', 'TransactWriteItems']);
  });

  it('createWebhookEndpoint within a leased block: idempotency claim, the sequence at creation and the transaction, 3 requests', async () => {
    const body = () => ({ body: JSON.stringify({ url: `https://hooks-${randomUUID().slice(0, 8)}.example.com/a` }), headers: writeHeaders() });
    const operations = await requestsOf('createWebhookEndpoint', body, 201);
    // The endpoint and the counter's conditional increment commit in the one transaction.
    expect(operations).toEqual(['PutItem', 'GetItem', 'TransactWriteItems']);
    const created = JSON.parse(String((await invoke('createWebhookEndpoint', body())).body)) as { id: string };
    expect(await requestsOf('getWebhookEndpoint', () => ({ path: `/v1/webhooks/endpoints/${created.id}` }), 200)).toEqual(['GetItem']);
  });

  it('submitExport: the submission token, the claim, the transaction (job + audit) and the dispatch mark, 4 requests', async () => {
    const operations = await requestsOf(
      'submitExport',
      () => ({ body: JSON.stringify({ kind: 'items' }), headers: { ...writeHeaders(), 'content-type': 'application/json' } }),
      202,
    );
    expect(operations).toEqual(['UpdateItem', 'PutItem', 'TransactWriteItems', 'UpdateItem']);
  });

  it('submitImportJob: the submission token (exact: one per submission), the claim, the transaction and the dispatch mark, 4 requests', async () => {
    const operations = await requestsOf('submitImportJob', () => importBody(`RC-${randomUUID().slice(0, 6)},One\n`), 202);
    // The general token comes from the block; the submission limit leases its one token.
    expect(operations).toEqual(['UpdateItem', 'PutItem', 'TransactWriteItems', 'UpdateItem']);
  });
});

describe('DynamoDB requests per warm call on a BOM of 500 lines, every text at its longest (docs/boms.md "Model")', () => {
  const LINES = 500;
  let components: string[] = [];
  let large = { id: '', firstRevision: '', lastRevision: '' };
  let sequence = 0;
  /** A create body of 500 lines (each call its own code), or, with `quantity`, the content a PUT sends. */
  const largeBody = (quantity?: number) => {
    const { code, ...content } = worstCaseBomBody({ itemIds: components, targetItemId: tenant.itemIds[0] ?? '', text: 'wide' });
    if (quantity === undefined) return JSON.stringify({ ...content, code: `${code.slice(0, 50)}-${(sequence += 1)}` });
    return JSON.stringify({ ...content, components: content.components.map((line, index) => (index === 0 ? { ...line, quantity } : line)) });
  };

  beforeAll(async () => {
    // 500 items kept in the longest unit, so every line may name it; the BOM, then a second revision
    const skus = Array.from({ length: LINES }, (_, index) => `RC-L${index}`);
    await importAndWait(importBody(skus.map((sku) => `${sku},Part,${worstCaseUnit('wide')}`).join('\n'), 'items', 'sku,name,unit'));
    const stored = await itemsOf(tenant.organizationId, skus);
    components = skus.map((sku) => stored.get(sku)?.record.id ?? '');
    const created = await invoke('createBom', { body: largeBody(), headers: writeHeaders() });
    expect(created.statusCode, String(created.body).slice(0, 300)).toBe(201);
    large.id = (JSON.parse(String(created.body)) as { id: string }).id;
    const updated = await invoke('updateBom', { path: `/v1/boms/${large.id}`, body: largeBody(2), headers: writeHeaders() });
    expect(updated.statusCode).toBe(200);
    const revisions = JSON.parse(String((await invoke('listBomRevisions', { path: `/v1/boms/${large.id}/revisions` })).body)) as {
      data: Array<{ id: string }>;
    };
    large = { ...large, firstRevision: revisions.data[0]?.id ?? '', lastRevision: revisions.data.at(-1)?.id ?? '' };
  }, 120_000);

  it.each([
    ['getBom', () => ({ path: `/v1/boms/${large.id}` }), ['GetItem']],
    ['getBomRevision', () => ({ path: `/v1/boms/${large.id}/revisions/${large.firstRevision}` }), ['GetItem', 'GetItem']],
    ['listBomRevisions', () => ({ path: `/v1/boms/${large.id}/revisions`, query: 'limit=50' }), ['GetItem', 'Query']],
    [
      'compareBomRevisions',
      () => ({ path: `/v1/boms/${large.id}/revisions/compare`, query: `fromRevisionId=${large.firstRevision}&toRevisionId=${large.lastRevision}` }),
      ['GetItem', 'GetItem', 'GetItem', 'GetItem'],
    ],
    ['listBoms', () => ({ query: 'limit=50' }), ['Query']],
  ] as const)('%s within a leased block: as for any BOM, whatever its lines', async (operationId, request, expected) => {
    // The BOM and each revision are one item each: a read of either is one request (compare reads the BOM and a revision twice).
    expect(await requestsOf(operationId, request, 200)).toEqual(expected);
  });

  it('createBom within a leased block: the claim, one batch read of the 501 items (6 pages of 100) and the transaction', async () => {
    const operations = await requestsOf('createBom', () => ({ body: largeBody(), headers: writeHeaders() }), 201);
    // More items than a transaction has room to check: one batch lookup says they exist, before the write.
    expect(operations).toEqual(['PutItem', ...Array<string>(6).fill('BatchGetItem'), 'TransactWriteItems']);
  });

  it('updateBom within a leased block: the claim, the BOM, the batch read of its items and the transaction', async () => {
    const operations = await requestsOf('updateBom', () => ({ path: `/v1/boms/${large.id}`, body: largeBody((sequence += 1)), headers: writeHeaders() }), 200);
    expect(operations).toEqual(['PutItem', 'GetItem', ...Array<string>(6).fill('BatchGetItem'), 'TransactWriteItems']);
  });

  it('createBom replayed (its response is kept in 2 parts): the claim refused, the record and its parts read at once', async () => {
    const replayed = { body: largeBody(), headers: writeHeaders() };
    expect((await invoke('createBom', replayed)).statusCode).toBe(201);
    const operations = await requestsOf('createBom', () => replayed, 201);
    expect(operations).toEqual(['PutItem', 'GetItem', 'GetItem', 'GetItem']);
  });
});
