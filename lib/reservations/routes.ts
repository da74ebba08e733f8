import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Reservations routes: stock held for an order or a build until it is released, fulfilled or
 * expires (docs/inventory.md "Reservations and available stock"). A handler imports its own route
 * from this file, never lib/app/routes.ts.
 */

export const createReservationRoute = {
  operationId: 'createReservation',
  method: 'POST',
  path: '/v1/reservations',
  scope: 'stock:write',
  submission: false,
  handler: 'functions/http/reservations/create-reservation.ts',
  summary: 'Reserve stock: 1 to 20 lines, all held or none, drawing only on available stock',
  tag: 'Reservations',
  requestBody: { mediaType: 'json' },
  success: {
    status: 201,
    description: 'The reservation, one line per stock record held.',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the reservation.' },
  },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const listReservationsRoute = {
  operationId: 'listReservations',
  method: 'GET',
  path: '/v1/reservations',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/reservations/list-reservations.ts',
  summary: 'List reservations, oldest first',
  tag: 'Reservations',
  success: { status: 200, description: 'A page of reservations.', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const getReservationRoute = {
  operationId: 'getReservation',
  method: 'GET',
  path: '/v1/reservations/{id}',
  scope: 'inventory:read',
  submission: false,
  handler: 'functions/http/reservations/get-reservation.ts',
  summary: 'Read a reservation',
  tag: 'Reservations',
  success: { status: 200, description: 'The reservation.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const releaseReservationRoute = {
  operationId: 'releaseReservation',
  method: 'POST',
  path: '/v1/reservations/{id}/release',
  scope: 'stock:write',
  submission: false,
  handler: 'functions/http/reservations/release-reservation.ts',
  summary: 'Release what a reservation holds, in part or whole',
  tag: 'Reservations',
  requestBody: { mediaType: 'json', optional: true },
  success: { status: 200, description: 'The reservation after the release.', mediaType: 'json' },
  errorStatuses: [400, 404, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const fulfilReservationRoute = {
  operationId: 'fulfilReservation',
  method: 'POST',
  path: '/v1/reservations/{id}/fulfil',
  scope: 'stock:write',
  submission: false,
  handler: 'functions/http/reservations/fulfil-reservation.ts',
  summary: 'Ship what a reservation holds, in part or whole (shipment movements)',
  tag: 'Reservations',
  requestBody: { mediaType: 'json', optional: true },
  success: { status: 200, description: 'The reservation after the shipment.', mediaType: 'json' },
  errorStatuses: [400, 404, 409],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const RESERVATION_ROUTES = [
  createReservationRoute,
  listReservationsRoute,
  getReservationRoute,
  releaseReservationRoute,
  fulfilReservationRoute,
] as const;
