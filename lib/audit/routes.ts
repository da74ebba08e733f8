import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Audit routes (the audit trail). A handler imports its own route from this file, never
 * lib/app/routes.ts, so its bundle carries one route, not the table.
 */

export const listAuditEventsRoute = {
  operationId: 'listAuditEvents',
  method: 'GET',
  path: '/v1/audit/events',
  scope: 'audit:read',
  submission: false,
  handler: 'functions/http/audit/list-audit-events.ts',
  summary: 'List audit events, newest first',
  tag: 'Audit',
  success: { status: 200, description: 'A page of audit events, newest first.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { audit: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

/** The area's routes in table order; lib/app/routes.ts registers them. */
export const AUDIT_ROUTES = [listAuditEventsRoute] as const satisfies readonly RouteDefinition[];
