import { OPENAPI_AREAS } from './openapi/areas/index.ts';
import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The problem `code`s each operation answers with, by status, for the OpenAPI document
 * (docs/api-guide.md "Errors: problem documents"). Most follow from what the route is: every
 * route validates its query (and path, headers, body); writes check the `Idempotency-Key`;
 * paged lists check their cursor; routes with a path parameter answer 404 with the area of their
 * tag when it names nothing. Each area's part (lib/app/openapi/areas/) adds what only the
 * operation's own domain code throws. The e2e suites check every problem they see against this list (through the document),
 * so a code the server sends and this file does not name fails a test.
 */

export type ProblemCodesByStatus = Partial<Record<number, readonly string[]>>;

/** The shared chain's own statuses: the same codes for every operation. */
export const CHAIN_PROBLEM_CODES: Readonly<Record<number, readonly string[]>> = {
  401: ['customer-api.auth.unauthenticated'],
  403: ['customer-api.auth.insufficient-scope'],
  406: ['customer-api.request.not-acceptable'],
  429: ['customer-api.rate-limit.exceeded'],
  500: ['customer-api.internal'],
};

/** What only an operation's own domain code throws, from its area's part (lib/app/openapi/areas/). */
const OPERATION_CODES: Partial<Record<string, ProblemCodesByStatus>> = Object.assign({}, ...OPENAPI_AREAS.map((area) => area.problemCodes));

function isWrite(route: Pick<RouteDefinition, 'method'>): boolean {
  return route.method !== 'GET';
}

/**
 * Problem codes of the route's own statuses (not the chain's 401, 403, 406, 429, 500), by
 * status; the statuses are exactly the ones the route can answer with besides the chain's.
 */
export function routeProblemCodes(route: RouteDefinition): Map<number, string[]> {
  const codes = new Map<number, string[]>();
  const add = (status: number, ...more: readonly string[]) => {
    const list = codes.get(status) ?? [];
    for (const code of more) if (!list.includes(code)) list.push(code);
    codes.set(status, list);
  };
  add(400, 'customer-api.validation.failed');
  if (route.access.cursorSecret) add(400, 'customer-api.pagination.invalid-cursor');
  if (isWrite(route)) {
    add(400, 'customer-api.idempotency.key-missing', 'customer-api.idempotency.key-invalid');
    add(409, 'customer-api.idempotency.key-reused', 'customer-api.idempotency.in-progress', 'customer-api.request.conflict');
  }
  if (route.path.includes('{')) add(404, `customer-api.${route.tag.toLowerCase()}.not-found`);
  if (route.requestBody !== undefined) {
    add(413, 'customer-api.request.too-large');
    add(415, 'customer-api.request.unsupported-media-type');
  }
  for (const [status, more] of Object.entries(OPERATION_CODES[route.operationId] ?? {})) add(Number(status), ...(more ?? []));
  // A status the route table lists with no code known here still gets documented (with the generic text).
  for (const status of route.errorStatuses) if (!codes.has(status)) codes.set(status, []);
  return new Map([...codes].sort(([a], [b]) => a - b));
}
