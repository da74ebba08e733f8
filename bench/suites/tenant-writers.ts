import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { inProcessImports, stockAtOneBin } from '../in-process-import.ts';
import { median, percentile, type Measure, type Suite } from './suite.ts';

/**
 * One organization's concurrent writers on the local stack (docs/performance.md "Scaling one
 * tenant"): 16 writers at once, each changing its own stock record by `POST /v1/stock/adjustments`
 * (1 line) through the handler in this process, back to back. Two figures:
 * - **cancelled transactions per commit**: every `TransactWriteItems` the app's client sends in the
 *   run, cancelled ones (`TransactionCanceledException`) ÷ the writes answered. The writers share
 *   no record, so what cancels them is the one item every write of an organization passes today:
 *   its event-sequence counter. Target ≤ 0.05 (the design's). A try answered 500 (the writer gave up
 *   after its 25 attempts, or the function's time ran out) is sent again with its Idempotency-Key,
 *   and counted apart.
 * - **answer → event in the feed**: after each answer its writer pages `GET /v1/events` from where
 *   it last read until its own `stock.changed` shows (read-after-response: 0 ms when the first read
 *   holds it), p99.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const WRITERS = 16;
const STARTING_QUANTITY = 1000;
const CANCELLED_TARGET = 0.05;
/** A write that still has no definite answer after this many tries with its key fails the suite rather than hang it. */
const MAX_TRIES = 100;

interface FeedPage {
  data: Array<{ type: string; data: { sku?: string; quantity?: number } }>;
  page: { nextCursor: string };
}

export const tenantWritersSuite: Suite = {
  name: 'tenant writers',
  async run(context) {
    const callsPerWriter = context.quick ? 5 : 40;
    const [{ createKey }, { keyRegistry }, { documentClient }] = await Promise.all([
      import('../../lib/platform/auth/manage-keys.ts'),
      import('../../local/key-registry.ts'),
      import('../../lib/platform/aws/dynamodb-client.ts'),
    ]);
    const imports = await inProcessImports();
    const organizationId = imports.newOrganization('writers');
    const skus = Array.from({ length: WRITERS }, (_, index) => `TW-${String(index).padStart(2, '0')}`);
    await stockAtOneBin(imports, organizationId, skus, STARTING_QUANTITY);
    // One key per writer: each stays far under the general rate limit.
    const keys = await Promise.all(
      skus.map(
        async (sku) =>
          (await createKey(keyRegistry(), { organizationId, name: `bench ${sku}`, scopes: ['stock:write', 'events:read'], environment: 'test' })).key,
      ),
    );
    const adjustRoute = routeById('adjustStock');
    const feedRoute = routeById('listEvents');
    const [adjust, feed] = await Promise.all([loadHandler<Handler>(adjustRoute.handler), loadHandler<Handler>(feedRoute.handler)]);
    const readFeed = async (key: string, cursor: string | undefined): Promise<FeedPage> => {
      const event = apiGatewayEvent(feedRoute, { key, query: new URLSearchParams({ limit: '100', ...(cursor ? { cursor } : {}) }).toString() });
      const response = await feed(event, invocationContext(event));
      if (response.statusCode !== 200) throw new Error(`GET /v1/events answered ${response.statusCode}: ${String(response.body)}`);
      return JSON.parse(String(response.body)) as FeedPage;
    };
    // Every writer reads the feed from its end as it stands now.
    let start: string | undefined;
    for (let page = await readFeed(keys[0] ?? '', undefined); ;) {
      start = page.page.nextCursor;
      if (page.data.length === 0) break;
      page = await readFeed(keys[0] ?? '', start);
    }

    let sent = 0;
    let cancelled = 0;
    const name = 'tenant-writers-transactions';
    documentClient.middlewareStack.add(
      (next) => async (args) => {
        const isTransaction = Array.isArray((args.input as { TransactItems?: unknown }).TransactItems);
        if (isTransaction) sent += 1;
        try {
          return await next(args);
        } catch (error) {
          if (isTransaction && error instanceof TransactionCanceledException) cancelled += 1;
          throw error;
        }
      },
      { step: 'initialize', name },
    );
    const latencies: number[] = [];
    const toFeed: number[] = [];
    let answered = 0;
    let failedTries = 0;
    const started = performance.now();
    try {
      await Promise.all(
        skus.map(async (sku, writer) => {
          const key = keys[writer] ?? '';
          let onHand = STARTING_QUANTITY;
          let cursor = start;
          for (let call = 0; call < callsPerWriter; call += 1) {
            const quantityDelta = onHand >= STARTING_QUANTITY ? -1 : 1;
            const body = JSON.stringify({
              reference: `TW-${writer}-${call}-${randomUUID().slice(0, 8)}`,
              reason: 'bench',
              lines: [{ sku, locationCode: 'A1', quantityDelta, expectedQuantity: onHand }],
            });
            const idempotencyKey = randomUUID();
            const sentAt = performance.now();
            let response: APIGatewayProxyStructuredResultV2;
            // A 500 (the writer gave up after its 25 attempts, or ran out of the function's time while
            // committing) may or may not have committed: sent again with the same key, as a client would.
            for (let tries = 1; ; tries += 1) {
              const event = apiGatewayEvent(adjustRoute, { key, headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey }, body });
              response = await adjust(event, invocationContext(event));
              if (response.statusCode !== 500 && response.statusCode !== 409) break;
              // 409 here is the key still in progress (the first try's commit under way), or its stale retry.
              if (response.statusCode === 409 && !String(response.body).includes('in-progress')) break;
              failedTries += 1;
              if (tries >= MAX_TRIES)
                throw new Error(`POST /v1/stock/adjustments still answered ${response.statusCode} after ${tries} tries with one Idempotency-Key`);
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
            const answeredAt = performance.now();
            if (response.statusCode !== 201) throw new Error(`POST /v1/stock/adjustments answered ${response.statusCode}: ${String(response.body)}`);
            latencies.push(answeredAt - sentAt);
            answered += 1;
            onHand += quantityDelta;
            // Its own stock.changed: this sku at its new quantity, somewhere after where it last read.
            // Read-after-response: 0 when reading on from the answer finds it before the feed's end, else how long after the answer the read that did began.
            for (let found = false, waited = false; !found;) {
              const readAt = performance.now();
              const page = await readFeed(key, cursor);
              found = page.data.some((item) => item.type === 'stock.changed' && item.data.sku === sku && item.data.quantity === onHand);
              cursor = page.page.nextCursor;
              if (found) toFeed.push(waited ? readAt - answeredAt : 0);
              else if (page.data.length === 0) {
                waited = true;
                if (performance.now() - answeredAt > 10_000) throw new Error(`${sku}'s event was not in the feed 10 s after its answer`);
                await new Promise((resolve) => setTimeout(resolve, 5));
              }
            }
          }
        }),
      );
    } finally {
      documentClient.middlewareStack.remove(name);
    }
    const seconds = (performance.now() - started) / 1000;
    const note = `${WRITERS} writers × ${callsPerWriter} adjustments of their own records, handlers in this process, DynamoDB Local`;
    return [
      {
        name: `tenant writers, ${WRITERS} writers: cancelled transactions per commit`,
        value: Math.round((cancelled / Math.max(1, answered)) * 1000) / 1000,
        unit: 'tx',
        target: { comparison: '<=', value: CANCELLED_TARGET },
        note: `${cancelled} cancelled of ${sent} transactions sent for ${answered} writes answered; ${note}`,
      },
      {
        name: `tenant writers, ${WRITERS} writers: tries answered 500`,
        value: failedTries,
        unit: 'tries',
        note: `of ${answered} writes: the writer gave up after 25 attempts or the function's time ran out; each sent again with its Idempotency-Key`,
      },
      { name: `tenant writers, ${WRITERS} writers: writes/s`, value: Math.round((answered / seconds) * 10) / 10, unit: 'writes/s', note },
      { name: `tenant writers, ${WRITERS} writers: write p50`, value: Math.round(median(latencies) * 10) / 10, unit: 'ms', note },
      { name: `tenant writers, ${WRITERS} writers: write p99`, value: Math.round(percentile(latencies, 0.99) * 10) / 10, unit: 'ms', note },
      {
        name: `tenant writers, ${WRITERS} writers: answer → event in the feed p99`,
        value: Math.round(percentile(toFeed, 0.99) * 10) / 10,
        unit: 'ms',
        note: 'read-after-response: 0 when the first feed read after the answer holds the event',
      },
    ] satisfies Measure[];
  },
};
