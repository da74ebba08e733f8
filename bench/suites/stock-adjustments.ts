import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { inProcessImports, stockAtOneBin } from '../in-process-import.ts';
import { median, percentile, type Measure, type Suite } from './suite.ts';

/**
 * `POST /v1/stock/adjustments` (docs/inventory.md "Writing stock over JSON"; docs/performance.md
 * "Stock adjustments over JSON") through its handler in this process, the full chain: warm
 * latency (p50, p99) of a change of 1 line and of 20 lines, and the DynamoDB requests each call
 * makes, counted at the SDK client the app uses (`local/dynamodb-requests.ts`), with their
 * breakdown by command. Items, locations and stock records are made first by real imports; every
 * line is on an existing record with its correct `expectedQuantity`, every call has a fresh
 * `reference` and `Idempotency-Key`. The two sizes alternate call by call, so both see the same
 * machine load. Target (the issue's): at most 4 requests a call whatever the number of lines, the
 * rate-limit lease and the idempotency claim included.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const REQUESTS_TARGET = 4;
const MANY_LINES = 20;
/** What every record holds before the first call; a line takes 1 from a record at it and gives 1 back otherwise, so it never runs out. */
const STARTING_QUANTITY = 1000;

interface Change {
  lines: Array<{ stockRecordId: string; sku: string; quantity: number }>;
}

/** One call's requests: how many, and how many of each command. */
interface CallRequests {
  total: number;
  byCommand: Map<string, number>;
}

/** `BatchGetItem 3, Query 1, …`: a call's commands, most frequent first, then by name. */
export function commandBreakdown(byCommand: ReadonlyMap<string, number>): string {
  return [...byCommand]
    .sort(([a, countA], [b, countB]) => countB - countA || a.localeCompare(b))
    .map(([command, count]) => `${command} ${count}`)
    .join(', ');
}

/** The breakdown most calls had (the steady state), how many calls had it, and every other one seen with its count. */
export function usualBreakdown(calls: readonly CallRequests[]): { usual: string; share: number; others: Array<[string, number]> } {
  const seen = new Map<string, number>();
  for (const call of calls) {
    const breakdown = commandBreakdown(call.byCommand);
    seen.set(breakdown, (seen.get(breakdown) ?? 0) + 1);
  }
  const sorted = [...seen].sort(([, a], [, b]) => b - a);
  const [usual, share] = sorted[0] ?? ['', 0];
  return { usual, share, others: sorted.slice(1) };
}

const round = (value: number) => Math.round(value * 100) / 100;

export const stockAdjustmentsSuite: Suite = {
  name: 'stock adjustments',
  async run(context) {
    // Alternating, so the two sizes make 2 × (warmup + calls) requests of one key: under the
    // general limit of 1,200 a minute even if the whole run took less than a minute.
    const warmup = context.quick ? 2 : 20;
    const calls = context.quick ? 10 : 300;
    const [{ createKey }, { keyRegistry }, { dynamoClient }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../lib/platform/aws/dynamodb-client.ts'),
    ]);

    // Setup: 21 items (one for the 1-line calls, 20 for the 20-line calls), one location, a stock record of each.
    const seeded = performance.now();
    const imports = await inProcessImports();
    const organizationId = imports.newOrganization('stockjson');
    const skus = Array.from({ length: MANY_LINES + 1 }, (_, index) => `SJ-${String(index).padStart(2, '0')}`);
    await stockAtOneBin(imports, organizationId, skus, STARTING_QUANTITY);
    const { key } = await createKey(keyRegistry(), { organizationId, name: 'bench stock adjustments', scopes: ['stock:write'], environment: 'test' });
    context.log(`stock adjustments: ${skus.length} items, 1 location and their stock records made in ${((performance.now() - seeded) / 1000).toFixed(1)} s`);

    const route = routeById('adjustStock');
    const handler = await loadHandler<Handler>(route.handler);
    const onHand = new Map(skus.map((sku) => [sku, STARTING_QUANTITY]));
    const [oneLine, manyLines] = [skus.slice(0, 1), skus.slice(1)];
    let sequence = 0;
    const counter = countDynamoDbRequests(dynamoClient);

    /** One change on `lineSkus` (−1 or +1 each), timed and counted; the on-hand it answers is the next call's `expectedQuantity`. */
    const adjust = async (lineSkus: string[]): Promise<{ ms: number; requests: CallRequests }> => {
      sequence += 1;
      const body = JSON.stringify({
        reference: `BENCH-${sequence}-${randomUUID().slice(0, 8)}`,
        reason: 'bench',
        lines: lineSkus.map((sku) => {
          const expectedQuantity = onHand.get(sku) ?? 0;
          return { sku, locationCode: 'A1', quantityDelta: expectedQuantity >= STARTING_QUANTITY ? -1 : 1, expectedQuantity };
        }),
      });
      const event = apiGatewayEvent(route, { key, headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() }, body });
      counter.reset();
      const started = performance.now();
      const response = await handler(event, invocationContext(event));
      const ms = performance.now() - started;
      const byCommand = new Map<string, number>();
      for (const operation of counter.operations()) byCommand.set(operation, (byCommand.get(operation) ?? 0) + 1);
      const requests = { total: counter.requests.length, byCommand };
      if (response.statusCode !== 201)
        throw new Error(`POST /v1/stock/adjustments (${lineSkus.length} lines) answered ${response.statusCode}: ${String(response.body)}`);
      for (const line of (JSON.parse(String(response.body)) as Change).lines) onHand.set(line.sku, line.quantity);
      return { ms, requests };
    };

    const samples = { one: [] as number[], many: [] as number[] };
    const requests = { one: [] as CallRequests[], many: [] as CallRequests[] };
    try {
      for (let round = 0; round < warmup; round += 1) {
        await adjust(oneLine);
        await adjust(manyLines);
      }
      for (let round = 0; round < calls; round += 1) {
        // Alternate which size goes first, as the middleware-overhead suite does.
        const order = round % 2 === 0 ? (['one', 'many'] as const) : (['many', 'one'] as const);
        for (const size of order) {
          const { ms, requests: counted } = await adjust(size === 'one' ? oneLine : manyLines);
          samples[size].push(ms);
          requests[size].push(counted);
        }
      }
    } finally {
      counter.stop();
    }

    const measures: Measure[] = [];
    const perCall: Record<'one' | 'many', number> = { one: 0, many: 0 };
    for (const [size, label] of [
      ['one', '1 line'],
      ['many', `${MANY_LINES} lines`],
    ] as const) {
      const totals = requests[size].map((call) => call.total);
      perCall[size] = median(totals);
      const mean = totals.reduce((sum, total) => sum + total, 0) / totals.length;
      const { usual, share, others } = usualBreakdown(requests[size]);
      const note = `${calls} warm calls after ${warmup}, handler in process`;
      measures.push(
        { name: `stock adjustment ${label} p50 (ms)`, value: round(median(samples[size])), unit: 'ms', note },
        { name: `stock adjustment ${label} p99 (ms)`, value: round(percentile(samples[size], 0.99)), unit: 'ms', note },
        {
          name: `stock adjustment requests per call (${label})`,
          value: perCall[size],
          unit: 'requests',
          note: `median; ${usual} in ${share} of ${calls} calls; mean ${round(mean)} (max ${Math.max(...totals)})`,
        },
      );
      context.log(`stock adjustment ${label}: DynamoDB requests per call ${usual} (${share} of ${calls} calls, mean ${round(mean)})`);
      for (const [breakdown, count] of others) context.log(`  also ${breakdown} (${count} call${count === 1 ? '' : 's'})`);
    }
    measures.push({
      name: 'stock adjustment requests per call',
      value: Math.max(perCall.one, perCall.many),
      unit: 'requests',
      target: { comparison: '<=', value: REQUESTS_TARGET },
      note: `the larger median of 1 and ${MANY_LINES} lines; rate-limit lease and idempotency claim included when they happen`,
    });
    return measures;
  },
};
