import type { HttpMethod, RouteDefinition } from '../../platform/contracts/route-types.ts';

/** HTTP conventions every operation of the document shares (docs/api-guide.md). */

const IDEMPOTENT_METHODS: ReadonlySet<HttpMethod> = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

export function isWriteRoute(route: Pick<RouteDefinition, 'method'>): boolean {
  return IDEMPOTENT_METHODS.has(route.method);
}

export const JSON_RESPONSE_MEDIA_TYPES = ['application/json', 'text/json', 'text/plain'];
export const JSON_REQUEST_MEDIA_TYPES = ['application/json', 'text/json', 'application/*+json'];

/** Order of the operations of one path in the document. */
export const METHOD_ORDER: readonly HttpMethod[] = ['GET', 'PUT', 'PATCH', 'POST', 'DELETE'];
