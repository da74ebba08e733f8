import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { inProcessImports } from '../in-process-import.ts';
import { usualBreakdown } from './stock-adjustments.ts';
import { median, percentile, type Measure, type Suite } from './suite.ts';

/**
 * `POST /v1/boms` (docs/boms.md; docs/performance.md "BOMs of 500 lines") through its handler in
 * this process, the full chain, as the `stock adjustments` suite measures its route: warm latency
 * (p50, p99) of creating a BOM of 500 lines (the most a BOM may have) and of 20, and the DynamoDB
 * requests each create makes, counted at the app's SDK client (`local/dynamodb-requests.ts`), by
 * command. Every line names its own item (made first by a real import), with a quantity, a scrap
 * percentage and 200 characters of notes (the longest a line's notes may be): a body of about
 * 150 KB for 500 lines. Every create has a fresh code and `Idempotency-Key`; the two sizes
 * alternate call by call, so both see the same machine load. No target yet.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const SIZES = { large: 500, small: 20 } as const;
type Size = keyof typeof SIZES;
/** What every line says, as long as a line's notes may be. */
const NOTES = 'Torque to spec, check seating and orientation against the drawing before the next step; '.repeat(3).slice(0, 200);

interface CallRequests {
  total: number;
  byCommand: Map<string, number>;
}

const round = (value: number) => Math.round(value * 100) / 100;

export const bomCreatesSuite: Suite = {
  name: 'bom creates',
  async run(context) {
    const warmup = context.quick ? 2 : 10;
    const calls = context.quick ? 10 : 100;
    const [{ createKey }, { keyRegistry }, { dynamoClient }, { InventoryStore }, { TABLES }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../lib/platform/aws/dynamodb-client.ts'),
      import('../../lib/inventory/store/inventory-store.ts'),
      import('../../lib/platform/storage/tables.ts'),
    ]);

    // Setup: the target and 500 component items.
    const seeded = performance.now();
    const imports = await inProcessImports();
    const organizationId = imports.newOrganization('bomcreates');
    const skus = Array.from({ length: SIZES.large + 1 }, (_, index) => `BC-${String(index).padStart(3, '0')}`);
    await imports.runWhole(organizationId, 'items', `${['sku,name', ...skus.map((sku) => `${sku},Item ${sku}`)].join('\n')}\n`);
    const items = await new InventoryStore(process.env[TABLES.inventory.envVar] ?? '').getByNaturalKeys(organizationId, 'item', skus);
    const [target = '', ...components] = skus.map((sku) => items.get(sku)?.record.id ?? '');
    const { key } = await createKey(keyRegistry(), { organizationId, name: 'bench bom creates', scopes: ['boms:write'], environment: 'test' });
    context.log(`bom creates: ${skus.length} items made in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    const route = routeById('createBom');
    const handler = await loadHandler<Handler>(route.handler);
    const counter = countDynamoDbRequests(dynamoClient);
    let sequence = 0;

    /** One create of a BOM of `size` lines, timed and its DynamoDB requests counted. */
    const create = async (size: Size): Promise<{ ms: number; requests: CallRequests }> => {
      sequence += 1;
      const body = JSON.stringify({
        code: `BENCH-${sequence}-${randomUUID().slice(0, 8)}`,
        name: `Assembly ${sequence}`,
        targetItemId: target,
        components: components.slice(0, SIZES[size]).map((itemId, index) => ({ itemId, quantity: (index % 9) + 1, scrapPercent: 2.5, notes: NOTES })),
      });
      const event = apiGatewayEvent(route, { key, headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body });
      counter.reset();
      const started = performance.now();
      const response = await handler(event, invocationContext(event));
      const ms = performance.now() - started;
      const byCommand = new Map<string, number>();
      for (const operation of counter.operations()) byCommand.set(operation, (byCommand.get(operation) ?? 0) + 1);
      if (response.statusCode !== 201)
        throw new Error(`POST /v1/boms (${SIZES[size]} lines) answered ${response.statusCode}: ${String(response.body).slice(0, 500)}`);
      return { ms, requests: { total: counter.requests.length, byCommand } };
    };

    const samples: Record<Size, number[]> = { large: [], small: [] };
    const requests: Record<Size, CallRequests[]> = { large: [], small: [] };
    try {
      for (let round = 0; round < warmup; round += 1) {
        await create('large');
        await create('small');
      }
      for (let round = 0; round < calls; round += 1) {
        const order = round % 2 === 0 ? (['large', 'small'] as const) : (['small', 'large'] as const);
        for (const size of order) {
          const measured = await create(size);
          samples[size].push(measured.ms);
          requests[size].push(measured.requests);
        }
      }
    } finally {
      counter.stop();
    }

    const note = `${calls} warm calls after ${warmup}, handler in process, 200-character notes on every line`;
    const measures: Measure[] = [];
    for (const size of ['large', 'small'] as const) {
      const label = `${SIZES[size]} lines`;
      const totals = requests[size].map((call) => call.total);
      const mean = totals.reduce((sum, total) => sum + total, 0) / totals.length;
      const { usual, share, others } = usualBreakdown(requests[size]);
      measures.push(
        { name: `bom create ${label} p50 (ms)`, value: round(median(samples[size])), unit: 'ms', note },
        { name: `bom create ${label} p99 (ms)`, value: round(percentile(samples[size], 0.99)), unit: 'ms', note },
        {
          name: `bom create requests per call (${label})`,
          value: median(totals),
          unit: 'requests',
          note: `median; ${usual} in ${share} of ${calls} calls; mean ${round(mean)} (max ${Math.max(...totals)})`,
        },
      );
      context.log(`bom create ${label}: DynamoDB requests per call ${usual} (${share} of ${calls} calls, mean ${round(mean)})`);
      for (const [breakdown, count] of others) context.log(`  also ${breakdown} (${count} call${count === 1 ? '' : 's'})`);
    }
    return measures;
  },
};
