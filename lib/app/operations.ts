import type * as z from '../platform/contracts/zod.ts';
import { ROUTES, type RouteId } from './routes.ts';
import type { RouteDefinition } from '../platform/contracts/route-types.ts';
import { OPENAPI_AREAS } from './openapi/areas/index.ts';
import { bindOperation, type OperationContract, type RouteOperation } from '../platform/contracts/operation.ts';

/** One route's request contract and the schema of its success body (`undefined`: not JSON). */
export interface OperationEntry<Id extends RouteId = RouteId> {
  contract: OperationContract<Id>;
  response: z.ZodType | undefined;
}

/** The areas' operation maps, intersected: what OPERATIONS holds once they are merged. */
type MergedOperations<Areas> = Areas extends readonly [infer First extends { operations: object }, ...infer Rest]
  ? First['operations'] & MergedOperations<Rest>
  : unknown;

/**
 * Every route's operation, by operationId, merged from the areas' parts
 * (lib/app/openapi/areas/<area>.ts): for the OpenAPI generator and the tests only. A
 * function never imports this module (it would bundle every area's schemas); its handler imports
 * its own contract, and no response schema, since responses are not validated at run time. The
 * mapped type makes a route without an entry (an area not registered in OPENAPI_AREAS) a type
 * error; test/contract/operations.test.ts checks the same at run time.
 */
export const OPERATIONS: { readonly [Id in RouteId]: OperationEntry<Id> } = Object.assign(
  {},
  ...OPENAPI_AREAS.map((area) => area.operations),
) as MergedOperations<typeof OPENAPI_AREAS>;

/** The operation of `operationId`, for code that holds the id as a plain string. */
export function operationEntry(operationId: string): OperationEntry | undefined {
  return (OPERATIONS as Readonly<Record<string, OperationEntry>>)[operationId];
}

/** The routes of the table, each bound to its contract and response schema, in table order. */
export function routeOperations(routes: readonly RouteDefinition[] = ROUTES): RouteOperation[] {
  return routes.map((route) => {
    const entry = operationEntry(route.operationId);
    if (!entry) throw new Error(`${route.operationId}: no operation in lib/app/operations.ts`);
    return bindOperation(route, entry.contract, entry.response);
  });
}
