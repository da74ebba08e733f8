import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { usualBreakdown } from './stock-adjustments.ts';
import { median, percentile, type Measure, type Suite } from './suite.ts';

/**
 * `POST /v1/items` and `PATCH /v1/items/{id}` (docs/inventory.md "Writing the catalog") through
 * their handlers in this process, the full chain, as the `stock adjustments` suite measures its
 * route: warm latency (p50, p99) of creating an item (a fresh sku) and of changing one (its name,
 * with `If-Match`), and the DynamoDB requests each call makes, counted at the app's SDK client
 * (`local/dynamodb-requests.ts`), by command. Target: at most 3 requests a call (the idempotency
 * claim, one read, one transaction).
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const REQUESTS_TARGET = 3;

interface CallRequests {
  total: number;
  byCommand: Map<string, number>;
}

const round = (value: number) => Math.round(value * 100) / 100;

export const catalogWritesSuite: Suite = {
  name: 'catalog writes',
  async run(context) {
    const warmup = context.quick ? 3 : 10;
    const calls = context.quick ? 20 : 200;
    const [{ createKey }, { keyRegistry }, { dynamoClient }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../lib/platform/aws/dynamodb-client.ts'),
    ]);
    const organizationId = `org_bench-catalog-${randomUUID().slice(0, 8)}`;
    const { key } = await createKey(keyRegistry(), { organizationId, name: 'bench catalog writes', scopes: ['inventory:write'], environment: 'test' });
    const createRoute = routeById('createItem');
    const patchRoute = routeById('updateItem');
    const [create, patch] = await Promise.all([loadHandler<Handler>(createRoute.handler), loadHandler<Handler>(patchRoute.handler)]);
    const counter = countDynamoDbRequests(dynamoClient);

    const call = async (handler: Handler, event: APIGatewayProxyEventV2, expected: number) => {
      counter.reset();
      const started = performance.now();
      const response = await handler(event, invocationContext(event));
      const ms = performance.now() - started;
      const byCommand = new Map<string, number>();
      for (const operation of counter.operations()) byCommand.set(operation, (byCommand.get(operation) ?? 0) + 1);
      if (response.statusCode !== expected) throw new Error(`${event.routeKey} answered ${response.statusCode}: ${String(response.body).slice(0, 500)}`);
      return { ms, requests: { total: counter.requests.length, byCommand }, body: JSON.parse(String(response.body)) as { id: string; version: number } };
    };

    let sequence = 0;
    const headers = (extra: Record<string, string> = {}) => ({ 'content-type': 'application/json', 'idempotency-key': randomUUID(), ...extra });
    const createOne = () => {
      sequence += 1;
      const body = JSON.stringify({ sku: `BENCH-${sequence}-${randomUUID().slice(0, 8)}`, name: `Bench item ${sequence}`, unit: 'kg', reorderPoint: 5 });
      return call(create, apiGatewayEvent(createRoute, { key, headers: headers(), body }), 201);
    };
    // One item patched over and over, its name toggled, each PATCH naming the version the last answered.
    const target = await createOne();
    let version = target.body.version;
    const patchOne = async () => {
      sequence += 1;
      const body = JSON.stringify({ name: `Bench item, renamed ${sequence}` });
      const event = apiGatewayEvent(patchRoute, { key, path: `/v1/items/${target.body.id}`, headers: headers({ 'if-match': `"${version}"` }), body });
      const measured = await call(patch, event, 200);
      version = measured.body.version;
      return measured;
    };

    const samples = { create: [] as number[], patch: [] as number[] };
    const requests = { create: [] as CallRequests[], patch: [] as CallRequests[] };
    try {
      for (let round = 0; round < warmup; round += 1) {
        await createOne();
        await patchOne();
      }
      for (let round = 0; round < calls; round += 1) {
        const order = round % 2 === 0 ? (['create', 'patch'] as const) : (['patch', 'create'] as const);
        for (const step of order) {
          const measured = step === 'create' ? await createOne() : await patchOne();
          samples[step].push(measured.ms);
          requests[step].push(measured.requests);
        }
      }
    } finally {
      counter.stop();
    }

    const note = `${calls} warm calls after ${warmup}, handler in process`;
    const measures: Measure[] = [];
    for (const step of ['create', 'patch'] as const) {
      const totals = requests[step].map((counted) => counted.total);
      const mean = totals.reduce((sum, total) => sum + total, 0) / totals.length;
      const { usual, share, others } = usualBreakdown(requests[step]);
      measures.push(
        { name: `item ${step} p50 (ms)`, value: round(median(samples[step])), unit: 'ms', note },
        { name: `item ${step} p99 (ms)`, value: round(percentile(samples[step], 0.99)), unit: 'ms', note },
        {
          name: `item ${step} requests per call`,
          value: median(totals),
          unit: 'requests',
          target: { comparison: '<=', value: REQUESTS_TARGET },
          note: `median; ${usual} in ${share} of ${calls} calls; mean ${round(mean)} (max ${Math.max(...totals)})`,
        },
      );
      context.log(`item ${step}: DynamoDB requests per call ${usual} (${share} of ${calls} calls, mean ${round(mean)})`);
      for (const [breakdown, count] of others) context.log(`  also ${breakdown} (${count} call${count === 1 ? '' : 's'})`);
    }
    return measures;
  },
};
