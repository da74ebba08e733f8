import type * as z from './zod.ts';
import type { RouteDefinition } from './route-types.ts';

/**
 * The zod side of one route that runs: what its request must look like. Each lives with its
 * area's contracts and carries the operationId of its route in lib/<area>/routes.ts; the handler binds
 * it to that route (`bindOperation`, which checks at cold start that the two fit) and hands both
 * to `createOperationHandler`. The success body's schema is not part of it: responses are not
 * validated at run time, so a function would only carry it (for GET /v1/events, the whole event
 * catalog). Each area's OpenAPI part (lib/app/openapi/areas/<area>.ts) pairs its routes'
 * contracts with their response schemas, merged in lib/app/operations.ts for OpenAPI and
 * the tests; no function imports them.
 */
export interface OperationContract<Id extends string = string> {
  operationId: Id;
  /** Core zod types: any zod object or schema, `zod/mini` (lib/platform/contracts/zod.ts) or classic. */
  request: {
    path?: z.core.$ZodObject;
    query?: z.core.$ZodObject;
    /**
     * Request headers the operation reads, keyed by their documented spelling (e.g. `If-Match`);
     * looked up case-insensitively. Headers not declared here are ignored, never rejected.
     */
    headers?: z.core.$ZodObject;
    /** The body's schema; its media type and limits are the route's `requestBody`. */
    body?: z.ZodType;
  };
}

/**
 * A contract of a route of the table; keeps the literal operationId for typing the handler. The
 * platform knows no route: that the id names a route of the table is checked where the two meet
 * (`bindOperation` at cold start, and test/contract/operations.test.ts for every contract).
 */
export function defineOperation<const C extends OperationContract>(contract: C): C {
  return contract;
}

/** A route with its contract, checked to fit (`bindOperation`). */
export interface RouteOperation<R extends RouteDefinition = RouteDefinition, C extends OperationContract = OperationContract> {
  route: R;
  contract: C;
  /** Schema of the success body of a JSON route: documentation only, never present in a function. */
  response?: z.ZodType;
}

function pathTemplateNames(path: string): string[] {
  return [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');
}

/**
 * Pairs a route with its contract (and, for documentation, its response schema), or throws when
 * they disagree: another operationId, a body schema without a `requestBody` (or the reverse), a
 * response schema on a route whose success is not JSON, or path parameters other than the path
 * template's.
 */
export function bindOperation<R extends RouteDefinition, C extends OperationContract>(route: R, contract: C, response?: z.ZodType): RouteOperation<R, C> {
  const { operationId } = route;
  if (contract.operationId !== operationId) throw new Error(`${operationId}: handed the contract of '${contract.operationId}'`);
  if ((contract.request.body === undefined) !== (route.requestBody === undefined)) {
    throw new Error(`${operationId}: the route's requestBody and the contract's request.body must both be present or both absent`);
  }
  if (response !== undefined && (route.success.mediaType ?? 'json') !== 'json') {
    throw new Error(`${operationId}: a response schema needs a JSON success (success.mediaType is '${route.success.mediaType}')`);
  }
  const templateNames = pathTemplateNames(route.path);
  const declared = Object.keys(contract.request.path?._zod.def.shape ?? {});
  if ([...templateNames].sort().join('\n') !== [...declared].sort().join('\n')) {
    throw new Error(`${operationId}: path template ${route.path} and request.path (${declared.join(', ') || 'none'}) disagree`);
  }
  return response === undefined ? { route, contract } : { route, contract, response };
}
