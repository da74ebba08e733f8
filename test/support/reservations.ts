import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { randomUUID } from 'node:crypto';
import { sweepExpiredReservations, type DueReservation } from '../../lib/reservations/domain/expiry-sweep.ts';
import { ReserveCommand, type ReservationInput } from '../../lib/reservations/domain/reserve.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import { SettleReservationCommand } from '../../lib/reservations/domain/settle.ts';
import { routeById } from '../../lib/app/routes.ts';
import { ReservationExpiryStore } from '../../lib/reservations/store/reservation-expiry-store.ts';
import { reservationPorts } from '../../lib/reservations/store/reservation-ports.ts';
import { apiGatewayEvent, invocationContext } from '../../local/api-gateway-events.ts';
import { loadHandler } from '../../local/load-handler.ts';
import { tableName, transactionWriter } from './events.ts';
import { assertDocumentedResponse } from './openapi-responses.ts';
import type { HandlerAnswer } from './stock-changes.ts';

/**
 * Reservations (docs/inventory.md "Reservations and available stock") driven in this process on
 * the local stack: the routes through their real handlers (functions/http/reservations/*.ts: API
 * key, scope, rate limit, body contract, Idempotency-Key, the command and its transaction), as
 * test/support/stock-changes.ts calls the JSON stock writes, each answer checked against
 * docs/openapi.json; a reservation created as of another time (the command's clock, as
 * test/integration/reservation-expiry.test.ts does); and the expiry sweep limited to one
 * organization, as of a given time.
 */

type Handler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

const OPERATIONS = {
  create: 'createReservation',
  get: 'getReservation',
  release: 'releaseReservation',
  fulfil: 'fulfilReservation',
} as const;
export type ReservationAction = keyof typeof OPERATIONS;

/**
 * Calls a reservation route under `key`: `create` POSTs `body` to /v1/reservations, `release` and
 * `fulfil` POST it (or no body when undefined) to /v1/reservations/{id}/…, `get` reads
 * /v1/reservations/{id}. Writes carry an Idempotency-Key (a fresh one unless given).
 */
export async function callReservationRoute(
  key: string,
  action: ReservationAction,
  request: { id?: string; body?: unknown; idempotencyKey?: string } = {},
): Promise<HandlerAnswer> {
  const definition = routeById(OPERATIONS[action]);
  const handler = await loadHandler<Handler>(definition.handler);
  const path = request.id === undefined ? definition.path : definition.path.replace('{id}', request.id);
  const headers: Record<string, string> = {};
  if (definition.method === 'POST') headers['idempotency-key'] = request.idempotencyKey ?? randomUUID();
  if (request.body !== undefined) headers['content-type'] = 'application/json';
  const event = apiGatewayEvent(definition, { key, path, headers, ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }) });
  const result = await handler(event, invocationContext(event));
  const answerHeaders = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name.toLowerCase(), String(value)]));
  const text = result.isBase64Encoded ? Buffer.from(String(result.body ?? ''), 'base64').toString('utf8') : String(result.body ?? '');
  const status = result.statusCode ?? 200;
  await assertDocumentedResponse({ method: definition.method, url: path }, new Response(text.length > 0 ? text : null, { status, headers: answerHeaders }));
  return { status, text, json: text.length > 0 ? (JSON.parse(text) as unknown) : undefined, headers: answerHeaders };
}

const ACTOR = { type: 'system' as const, id: 'reservation-property-tests' };

/** A reservation created as of `createdAt` (the command's clock), committed by the real writer; an ApiError when refused. */
export async function reserveAsOf(organizationId: string, input: ReservationInput, createdAt: Date): Promise<Reservation> {
  const command = new ReserveCommand({ ...reservationPorts(tableName('inventory')), clock: () => createdAt });
  return (await transactionWriter().run({ organizationId, actor: ACTOR, traceId: null }, () => command.create(organizationId, input))).result;
}

/**
 * The expiry sweep (lib/reservations/domain/expiry-sweep.ts) as the worker runs it, as of `now`,
 * limited to `organizationId`: the real expiry index read (a page large enough that other
 * organizations' due reservations cannot crowd this one's out) and the real expiry command.
 */
export async function sweepOrganization(
  organizationId: string,
  now: Date,
): Promise<{ expired: number; finished: number; skipped: number; errors: number; failures: unknown[] }> {
  const expiries = new ReservationExpiryStore(tableName('inventory'));
  const command = new SettleReservationCommand(reservationPorts(tableName('inventory')));
  const failures: unknown[] = [];
  const run = { writer: transactionWriter(), context: { organizationId, actor: ACTOR, traceId: null }, requestKey: null };
  const counts = await sweepExpiredReservations({
    due: async (at, limit) => (await expiries.due(at, 2_000)).filter((entry) => entry.organizationId === organizationId).slice(0, limit),
    expire: async (entry: DueReservation) => {
      await transactionWriter().run({ organizationId: entry.organizationId, actor: ACTOR, traceId: null }, () =>
        command.settle(entry.organizationId, entry.id, 'expire', undefined, run),
      );
    },
    finishPending: (entry) => command.finishPending(entry.organizationId, entry.id, run),
    onError: (_entry, error) => failures.push(error),
    clock: () => now,
  });
  return { ...counts, failures };
}

/** Every reservation of the organization as stored, oldest first (the list's store read, page after page). */
export async function storedReservations(organizationId: string): Promise<Reservation[]> {
  const { store } = reservationPorts(tableName('inventory'));
  const all: Reservation[] = [];
  let after: string | undefined;
  for (;;) {
    const page = await store.page(organizationId, {}, after, 100);
    all.push(...page.items);
    if (!page.more || page.last === undefined) return all;
    after = page.last;
  }
}
