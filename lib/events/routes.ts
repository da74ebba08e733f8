import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Events routes (the pull feed of domain events). A handler imports its own route from this
 * file, never lib/app/routes.ts, so its bundle carries one route, not the table.
 */

export const listEventsRoute = {
  operationId: 'listEvents',
  method: 'GET',
  path: '/v1/events',
  scope: 'events:read',
  submission: false,
  handler: 'functions/http/events/list-events.ts',
  summary: 'Read the feed of domain events',
  tag: 'Events',
  success: { status: 200, description: 'A page of event envelopes, oldest first; `page.nextCursor` is always a string.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { events: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

/** The area's routes in table order; lib/app/routes.ts registers them. */
export const EVENT_ROUTES = [listEventsRoute] as const satisfies readonly RouteDefinition[];
