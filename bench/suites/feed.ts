import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById } from '../../lib/app/routes.ts';
import { countDynamoDbRequests } from '../../local/dynamodb-requests.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { batchWriteAll } from '../raw-loader.ts';
import { median, type Measure, type Suite } from './suite.ts';

/**
 * The events feed at two lengths (docs/performance.md "Events feed"): a page of 50 read through
 * the `GET /v1/events` handler in this process at the head, the middle and the tail of a feed of
 * 1,000 and of 100,000 events (quick: 10,000), with the capacity DynamoDB reports per page. The
 * target is a page costing the same whatever the length: latency ratio ≤ 1.2.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;
const RATIO_TARGET = 1.2;
const PAGE = 50;

/** Writes `count` committed events and the counter straight into the events table. */
async function seedFeed(organizationId: string, count: number): Promise<string[]> {
  const [{ eventBatchItems }, { newEventId }, { TABLES }, { eventSequenceEntity }, { entityItem }] = await Promise.all([
    import('../../lib/platform/dynamo/event-batches.ts'),
    import('../../lib/platform/events/event-id.ts'),
    import('../../lib/platform/storage/tables.ts'),
    import('../../lib/platform/dynamo/entities.ts'),
    import('../../lib/platform/dynamo/entity.ts'),
  ]);
  const table = process.env[TABLES.events.envVar] ?? '';
  const now = new Date();
  const ids: string[] = [];
  // One event per transaction, so one batch item per event: the most items a page can read.
  const items = Array.from({ length: count }, (_, index) => {
    const id = newEventId(index + 1);
    ids.push(id);
    const envelope = {
      id,
      type: 'item.created' as const,
      version: 1,
      occurredAt: now.toISOString(),
      organizationId,
      data: { item: { id: `itm_bench${index}`, sku: `FEED-${index}` } },
    };
    return eventBatchItems([envelope as Parameters<typeof eventBatchItems>[0][number]], index + 1, now);
  }).flat();
  items.push(entityItem(eventSequenceEntity, { organizationId }, { last: count }));
  await batchWriteAll(table, items, 4);
  return ids;
}

export const feedSuite: Suite = {
  name: 'events feed',
  async run(context) {
    const [{ createKey }, { keyRegistry }, { handler }, { dynamoClient }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../functions/http/events/list-events.ts') as Promise<{ handler: Handler }>,
      import('../../lib/platform/aws/dynamodb-client.ts'),
    ]);
    const sizes = [1000, context.quick ? 10_000 : 100_000] as const;
    const pages = context.quick ? 5 : 40;
    const route = routeById('listEvents');
    const results = new Map<string, { ms: number; units: number; requests: number }>();
    const calls = new Map<string, () => Promise<void>>();
    for (const size of sizes) {
      const organizationId = `org_feed${size}_${randomUUID().slice(0, 6)}`;
      const started = performance.now();
      const ids = await seedFeed(organizationId, size);
      context.log(`events feed: ${size} events seeded in ${((performance.now() - started) / 1000).toFixed(1)} s`);
      const { key } = await createKey(keyRegistry(), { organizationId, name: 'bench feed', scopes: ['events:read'], environment: 'test' });
      const positions = { head: undefined, middle: ids[size / 2 - 1], tail: ids[size - PAGE - 1] };
      for (const [position, afterEventId] of Object.entries(positions)) {
        const query = `limit=${PAGE}${afterEventId ? `&afterEventId=${afterEventId}` : ''}`;
        calls.set(`${size} ${position}`, async () => {
          const event = apiGatewayEvent(route, { key, query });
          const response = await handler(event, invocationContext(event));
          if (response.statusCode !== 200) throw new Error(`GET /v1/events answered ${response.statusCode}: ${String(response.body)}`);
        });
      }
    }
    // Both lengths alternate page by page, so they see the same machine load and warmth.
    const samples = new Map<string, number[]>([...calls.keys()].map((label) => [label, []]));
    const counted = new Map<string, { requests: number; units: number }>();
    for (const call of calls.values()) await call();
    for (let page = 0; page < pages; page += 1) {
      for (const [label, call] of calls) {
        const counter = countDynamoDbRequests(dynamoClient);
        const pageStarted = performance.now();
        await call();
        samples.get(label)?.push(performance.now() - pageStarted);
        counter.stop();
        const units = counter.requests.filter((request) => request.operation === 'Query').reduce((sum, request) => sum + (request.capacityUnits ?? 0), 0);
        counted.set(label, { requests: counter.requests.length, units });
      }
    }
    for (const [label, values] of samples) {
      const { requests = Number.NaN, units = Number.NaN } = counted.get(label) ?? {};
      results.set(label, { ms: median(values), units, requests });
    }
    const measures: Measure[] = [];
    for (const position of ['head', 'middle', 'tail']) {
      const small = results.get(`${sizes[0]} ${position}`);
      const large = results.get(`${sizes[1]} ${position}`);
      if (!small || !large) continue;
      measures.push(
        {
          name: `feed page of ${PAGE} at the ${position}, ${sizes[0]} events`,
          value: round(small.ms),
          unit: 'ms',
          note: `${small.requests} requests, ${small.units} Query read units per page`,
        },
        {
          name: `feed page of ${PAGE} at the ${position}, ${sizes[1]} events`,
          value: round(large.ms),
          unit: 'ms',
          note: `${large.requests} requests, ${large.units} Query read units per page`,
        },
        {
          name: `feed page latency ratio ${sizes[1]} ÷ ${sizes[0]} events, ${position}`,
          value: round(large.ms / small.ms),
          unit: '×',
          target: { comparison: '<=', value: RATIO_TARGET },
        },
      );
    }
    return measures;
  },
};

const round = (value: number) => Math.round(value * 100) / 100;
