import { ATTACHMENT_ROUTES } from '../attachments/routes.ts';
import { AUDIT_ROUTES } from '../audit/routes.ts';
import { BOM_ROUTES } from '../boms/routes.ts';
import { BUILD_ROUTES } from '../builds/routes.ts';
import { EVENT_ROUTES } from '../events/routes.ts';
import { EXPORT_ROUTES } from '../exports/routes.ts';
import { IMPORT_ROUTES } from '../imports/routes.ts';
import { INVENTORY_ROUTES } from '../inventory/routes.ts';
import { LABEL_ROUTES } from '../labels/routes.ts';
import { RESERVATION_ROUTES } from '../reservations/routes.ts';
import { STOCK_ROUTES } from '../stock/routes.ts';
import type { ResourceAccess, RouteDefinition } from '../platform/contracts/route-types.ts';
import { WEBHOOK_ROUTES } from '../webhooks/routes.ts';

/**
 * THE route table. The CDK stack, the local server, the OpenAPI generator and the route-matrix
 * tests all derive from this list; nothing else lists routes. A route enters it when its
 * handler is implemented: it is defined in its area's file (`lib/<area>/routes.ts`, shapes in
 * `lib/platform/contracts/route-types.ts`) and the area's list is registered here once.
 *
 * Metadata only: every function imports a route, so no file of lib/routes imports a zod schema, a
 * body parser or a store. Each route is exported on its own (`getBomRoute`, …) and a handler
 * imports only its own from its area's file, so its bundle carries one route, not the table (only
 * the `$default` function needs `ROUTES`). A route's request and response schemas are its
 * operation contract (lib/<area>/contracts/…, keyed by the same operationId), which only its own
 * handler imports; `bindOperation` (lib/platform/contracts/operation.ts) checks at cold start that the
 * contract fits the route.
 */
export const ROUTES = [
  ...LABEL_ROUTES,
  ...EVENT_ROUTES,
  ...AUDIT_ROUTES,
  ...IMPORT_ROUTES,
  ...ATTACHMENT_ROUTES,
  ...BOM_ROUTES,
  ...BUILD_ROUTES,
  ...INVENTORY_ROUTES,
  ...STOCK_ROUTES,
  ...RESERVATION_ROUTES,
  ...EXPORT_ROUTES,
  ...WEBHOOK_ROUTES,
] as const satisfies readonly RouteDefinition[];

export type RouteId = (typeof ROUTES)[number]['operationId'];

/** Storage every route needs because of the shared chain (auth reads keys; rate limit counts). */
const CHAIN_ACCESS: ResourceAccess = { tables: { keys: 'read', 'rate-limits': 'read-write' } };

/** What every write route needs besides: idempotency records, the event sequence, the audit log. */
const WRITE_CHAIN_ACCESS: ResourceAccess = { tables: { idempotency: 'read-write', events: 'read-write', audit: 'write' } };

export function resourcesFor(route: RouteDefinition): ResourceAccess {
  const chainTables = route.method === 'GET' ? CHAIN_ACCESS.tables : { ...CHAIN_ACCESS.tables, ...WRITE_CHAIN_ACCESS.tables };
  return {
    ...route.access,
    tables: { ...chainTables, ...route.access.tables },
  };
}

export type RouteOf<Id extends RouteId> = Extract<(typeof ROUTES)[number], { operationId: Id }>;

export function routeById<Id extends RouteId>(operationId: Id): RouteOf<Id> {
  const route = ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`No route '${operationId}' in lib/app/routes.ts`);
  return route as RouteOf<Id>;
}
