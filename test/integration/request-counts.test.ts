import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dynamoClient } from '../../lib/store/dynamodb-client.ts';
import { routeById, type RouteId } from '../../lib/routes/index.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { createTestKey } from '../support/api.ts';
import { countDynamoDbRequests, type RequestCounter } from '../../local/dynamodb-requests.ts';
import { itemsOf, rawMultipart } from '../support/imports.ts';
import { apiGatewayEvent, invocationContext, type EventRequest } from '../../local/api-gateway-events.ts';

/**
 * DynamoDB requests per API call (docs/performance.md "Requests per call"), counted at the SDK
 * client on a warm container: the handlers run in this process against the local stack, after
 * one earlier call has warmed the API key cache and the organization's sequence hint.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

let counter: RequestCounter;
let tenant: { key: string; itemIds: string[] };
let bomId = '';
let jobId = '';

async function invoke(operationId: RouteId, request: Omit<EventRequest, 'key'> = {}) {
  const route = routeById(operationId);
  const handler = await loadHandler<Handler>(route.handler);
  const event = apiGatewayEvent(route, { ...request, key: tenant.key });
  return handler(event, invocationContext(event));
}

/** The requests of one warm call, after `warmUp` (by default the same call) ran once. */
async function requestsOf(operationId: RouteId, request: () => Omit<EventRequest, 'key'>, expectedStatus: number) {
  const warm = await invoke(operationId, request());
  expect(warm.statusCode, String(warm.body)).toBe(expectedStatus);
  counter.reset();
  const measured = await invoke(operationId, request());
  expect(measured.statusCode, String(measured.body)).toBe(expectedStatus);
  return counter.operations();
}

const bomBody = () =>
  JSON.stringify({ code: `BOM-${randomUUID().slice(0, 8)}`, name: 'Frame', targetItemId: tenant.itemIds[0], components: [{ itemId: tenant.itemIds[1], quantity: 2 }] });
/** A multipart items import of `rows` (CSV lines after the header), base64 as API Gateway passes it. */
function importBody(rows: string): Omit<EventRequest, 'key'> {
  const multipart = rawMultipart([
    { name: 'kind', value: 'items' },
    { name: 'duplicateStrategy', value: 'skip' },
    { name: 'file', value: `sku,name\n${rows}`, fileName: 'items.csv' },
  ]);
  return { body: multipart.body.toString('base64'), headers: { 'content-type': multipart.contentType, 'idempotency-key': randomUUID() }, base64: true };
}
const writeHeaders = () => ({ 'idempotency-key': randomUUID(), 'content-type': 'application/json' });

beforeAll(async () => {
  const created = await createTestKey();
  tenant = { key: created.key, itemIds: [] };
  // Two items to name in BOMs, imported through the in-process handlers (the stack's worker runs the job).
  const items = importBody('RC-A,Frame\nRC-B,Bolt\n');
  const submitted = await invoke('submitImportJob', items);
  expect(submitted.statusCode, String(submitted.body)).toBe(202);
  jobId = (JSON.parse(String(submitted.body)) as { id: string }).id;
  for (let waited = 0; ; waited += 100) {
    const job = await invoke('getImportJob', { path: `/v1/imports/jobs/${jobId}` });
    if ((JSON.parse(String(job.body)) as { status: string }).status === 'succeeded') break;
    if (waited > 60_000) throw new Error(`The import of the test items did not succeed within 60 s: ${String(job.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const stored = await itemsOf(created.record.organizationId, ['RC-A', 'RC-B']);
  tenant.itemIds = ['RC-A', 'RC-B'].map((sku) => stored.get(sku)?.record.id ?? '');
  counter = countDynamoDbRequests(dynamoClient);
  const bom = await invoke('createBom', { body: bomBody(), headers: writeHeaders() });
  expect(bom.statusCode, String(bom.body)).toBe(201);
  bomId = (JSON.parse(String(bom.body)) as { id: string }).id;
}, 120_000);
afterAll(() => counter?.stop());

describe('DynamoDB requests per warm API call', () => {
  it.each([
    ['listEvents', () => ({ query: 'limit=50' }), ['Query', 'UpdateItem']],
    ['listAuditEvents', () => ({ query: 'limit=50' }), ['Query', 'UpdateItem']],
    ['getImportJob', () => ({ path: `/v1/imports/jobs/${jobId}` }), ['GetItem', 'UpdateItem']],
    ['getBom', () => ({ path: `/v1/boms/${bomId}` }), ['GetItem', 'UpdateItem']],
  ] as const)('%s: the domain read and the rate-limit counter, 2 requests', async (operationId, request, expected) => {
    expect((await requestsOf(operationId, request, 200)).sort()).toEqual([...expected].sort());
  });

  it('renderBarcode: the rate-limit counter only, 1 request', async () => {
    expect(await requestsOf('renderBarcode', () => ({ query: 'payload=RC-1' }), 200)).toEqual(['UpdateItem']);
  });

  it('createBom: rate limit, idempotency claim and the transaction, at most 3 requests', async () => {
    const operations = await requestsOf('createBom', () => ({ body: bomBody(), headers: writeHeaders() }), 201);
    // The rate-limit update, the idempotency claim, then the transaction (which also checks the named items).
    expect(operations).toEqual(['UpdateItem', 'PutItem', 'TransactWriteItems']);
  });

  it('submitImportJob: rate limit (both windows), idempotency claim, the transaction and the dispatch mark, at most 4 requests', async () => {
    const operations = await requestsOf('submitImportJob', () => importBody(`RC-${randomUUID().slice(0, 6)},One\n`), 202);
    // One rate-limit update for both windows, the claim, the transaction, the dispatch mark.
    expect(operations).toEqual(['UpdateItem', 'PutItem', 'TransactWriteItems', 'UpdateItem']);
  });
});
