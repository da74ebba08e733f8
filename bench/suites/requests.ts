import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById, type RouteId } from '../../lib/routes/index.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { apiGatewayEvent, invocationContext, type EventRequest } from '../../local/api-gateway-events.ts';
import type { Measure, Suite } from './suite.ts';
import { createTenant } from './tenant.ts';

/**
 * DynamoDB requests and consumed capacity per warm API call (docs/performance.md "Requests per
 * call"), counted at the SDK client while the handlers run in this process. Deterministic: quick
 * mode measures the same.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export const requestsSuite: Suite = {
  name: 'requests per call',
  async run(context) {
    const tenant = await createTenant(context.stack);
    const { dynamoClient } = await import('../../lib/store/dynamodb-client.ts');
    const invoke = async (operationId: RouteId, request: Omit<EventRequest, 'key'>) => {
      const route = routeById(operationId);
      const event = apiGatewayEvent(route, { ...request, key: tenant.key });
      return (await loadHandler<Handler>(route.handler))(event, invocationContext(event));
    };
    const importForm = async () => {
      const form = new FormData();
      form.append('kind', 'items');
      form.append('duplicateStrategy', 'skip');
      form.append('file', new Blob([`sku,name\nREQ-${randomUUID().slice(0, 6)},One\n`], { type: 'text/csv' }), 'items.csv');
      // A Response serializes the form exactly as fetch would send it, boundary included.
      const encoded = new Response(form);
      const body = Buffer.from(await encoded.arrayBuffer()).toString('base64');
      return { body, base64: true, headers: { 'content-type': encoded.headers.get('content-type') ?? '', 'idempotency-key': randomUUID() } };
    };
    const calls: Array<[string, RouteId, () => Omit<EventRequest, 'key'> | Promise<Omit<EventRequest, 'key'>>, number]> = [
      ['GET /v1/events', 'listEvents', () => ({ query: 'limit=50' }), 2],
      ['GET /v1/audit/events', 'listAuditEvents', () => ({ query: 'limit=50' }), 2],
      ['GET /v1/imports/jobs/{id}', 'getImportJob', () => ({ path: `/v1/imports/jobs/${tenant.jobId}` }), 2],
      ['GET /v1/boms/{id}', 'getBom', () => ({ path: `/v1/boms/${tenant.bomId}` }), 2],
      ['GET /v1/barcodes', 'renderBarcode', () => ({ query: 'payload=REQ-1' }), 2],
      [
        'POST /v1/boms',
        'createBom',
        () => ({
          headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
          body: JSON.stringify({ code: `REQ-${randomUUID().slice(0, 8)}`, name: 'Frame', targetItemId: tenant.itemIds[0], components: [{ itemId: tenant.itemIds[1], quantity: 2 }] }),
        }),
        3,
      ],
      ['POST /v1/imports/jobs', 'submitImportJob', importForm, 4],
    ];
    const measures: Measure[] = [];
    for (const [label, operationId, request, target] of calls) {
      await invoke(operationId, await request());
      const counter = countDynamoDbRequests(dynamoClient);
      const next = await request();
      const response = await invoke(operationId, next);
      counter.stop();
      if ((response.statusCode ?? 500) >= 300) throw new Error(`${label} answered ${response.statusCode}: ${String(response.body)}`);
      const units = counter.requests.reduce((sum, counted) => sum + (counted.capacityUnits ?? 0), 0);
      measures.push({
        name: `${label}: DynamoDB requests (warm)`,
        value: counter.requests.length,
        unit: 'requests',
        target: { comparison: '<=', value: target },
        note: `${counter.operations().join(', ')}; ${units} capacity units`,
      });
    }
    context.log(`requests per call: ${calls.length} calls counted`);
    return measures;
  },
};
