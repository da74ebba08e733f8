import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById, type RouteId } from '../../lib/app/routes.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { apiGatewayEvent, invocationContext, type EventRequest } from '../../local/api-gateway-events.ts';
import type { Measure, Suite } from './suite.ts';
import { createTenant, type BenchTenant } from './tenant.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RATE_LIMIT_ENV } from '../../lib/platform/config/rate-limits.ts';
import { importBundledHandler } from '../bundled-handler.ts';
import type { BenchContext } from './suite.ts';

/**
 * DynamoDB requests and consumed capacity per warm API call (docs/performance.md "Requests per
 * call"), counted at the SDK client while the handlers run in this process. Deterministic: quick
 * mode measures the same.
 */

/**
 * A read's DynamoDB requests over a key's steady traffic, token leases against their baseline: the
 * deployed bundle imported as two containers (bench/bundled-handler.ts), one as deployed and one
 * with `RATE_LIMIT_LEASE_BLOCK_MAX=1` (a counter write per request, as before the leases), each
 * serving the same run of warm reads, counted on the wire.
 */
async function steadyReads(context: BenchContext, tenant: BenchTenant): Promise<Measure[]> {
  const reads = context.quick ? 20 : 200;
  const directory = mkdtempSync(join(tmpdir(), 'bench-requests-'));
  const measures: Measure[] = [];
  try {
    for (const [label, operationId, request] of [
      ['GET /v1/boms/{id}', 'getBom', { path: `/v1/boms/${tenant.bomId}` }],
      ['GET /v1/events', 'listEvents', { query: 'limit=50' }],
    ] as const) {
      const route = routeById(operationId);
      const call = (handler: Handler) => {
        const event = apiGatewayEvent(route, { ...request, key: tenant.key });
        return handler(event, invocationContext(event));
      };
      for (const [variant, env] of [
        ['token leases', {}],
        ['lease block 1 (baseline)', { [RATE_LIMIT_ENV.leaseBlockMax]: '1' }],
      ] as const) {
        const bundled = await importBundledHandler<Handler>(route.handler, {
          directory,
          variant: `${operationId}-${variant}`,
          env,
          warmup: async (handler) => void (await call(handler)),
        });
        try {
          for (let index = 0; index < reads; index += 1) {
            const response = await call(bundled.handler);
            if ((response.statusCode ?? 500) !== 200) throw new Error(`${label} answered ${response.statusCode}: ${String(response.body)}`);
          }
          const { total, operations } = bundled.requests.snapshot();
          measures.push({
            name: `${label}: DynamoDB requests per read, ${variant}`,
            value: total / reads,
            unit: 'requests',
            note: `${total} in ${reads} warm reads of one key (${operations})`,
          });
        } finally {
          await bundled.close();
        }
      }
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  return measures;
}

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

export const requestsSuite: Suite = {
  name: 'requests per call',
  async run(context) {
    const tenant = await createTenant(context.stack);
    const { dynamoClient } = await import('../../lib/platform/aws/dynamodb-client.ts');
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
          body: JSON.stringify({
            code: `REQ-${randomUUID().slice(0, 8)}`,
            name: 'Frame',
            targetItemId: tenant.itemIds[0],
            components: [{ itemId: tenant.itemIds[1], quantity: 2 }],
          }),
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
    measures.push(...(await steadyReads(context, tenant)));
    return measures;
  },
};
