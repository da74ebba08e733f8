import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { routeById } from '../../lib/app/routes.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { assertDocumentedResponse } from './openapi-responses.ts';

/**
 * The stock writes over JSON (docs/inventory.md "Writing stock over JSON") called in this process
 * through their real handlers (the whole chain: API key, scope, rate limit, body contract,
 * Idempotency-Key, the change and its transaction) against the local stack, as
 * test/integration/request-counts.test.ts invokes handlers. Each answer is checked against
 * docs/openapi.json like every answer of the e2e suites.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/** The four routes, by the last segment of their path. */
export const STOCK_CHANGE_ROUTES = {
  adjustments: 'adjustStock',
  transfers: 'transferStock',
  counts: 'countStock',
  receipts: 'receiveStock',
} as const;
export type StockChangeRoute = keyof typeof STOCK_CHANGE_ROUTES;

export interface HandlerAnswer {
  status: number;
  /** The body as sent. */
  text: string;
  /** The body parsed (every answer of these routes is JSON). */
  json: unknown;
  headers: Record<string, string>;
}

/** POST /v1/stock/{route} with a JSON body under `key` and an Idempotency-Key (a fresh one unless given). */
export async function postStockChange(key: string, route: StockChangeRoute, body: unknown, idempotencyKey: string = randomUUID()): Promise<HandlerAnswer> {
  const definition = routeById(STOCK_CHANGE_ROUTES[route]);
  const handler = await loadHandler<Handler>(definition.handler);
  const event = apiGatewayEvent(definition, {
    key,
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify(body),
  });
  const result = await handler(event, invocationContext(event));
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  const text = result.isBase64Encoded ? Buffer.from(String(result.body ?? ''), 'base64').toString('utf8') : String(result.body ?? '');
  const status = result.statusCode ?? 200;
  await assertDocumentedResponse({ method: definition.method, url: definition.path }, new Response(text.length > 0 ? text : null, { status, headers }));
  return { status, text, json: text.length > 0 ? (JSON.parse(text) as unknown) : undefined, headers };
}
