import type { RouteDefinition } from '../platform/contracts/route-types.ts';

/**
 * The Webhooks routes (docs/webhooks.md): endpoints, secret rotation, the delivery log and replays.
 * A handler imports its own route from this file, never lib/app/routes.ts.
 */

export const listWebhookEndpointsRoute = {
  operationId: 'listWebhookEndpoints',
  method: 'GET',
  path: '/v1/webhooks/endpoints',
  scope: 'webhooks:read',
  submission: false,
  handler: 'functions/http/webhooks/list-webhook-endpoints.ts',
  summary: 'List webhook endpoints',
  tag: 'Webhooks',
  success: { status: 200, description: 'A page of endpoints, oldest first (never a secret).', mediaType: 'json' },
  errorStatuses: [400],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const createWebhookEndpointRoute = {
  operationId: 'createWebhookEndpoint',
  method: 'POST',
  path: '/v1/webhooks/endpoints',
  scope: 'webhooks:write',
  submission: false,
  handler: 'functions/http/webhooks/create-webhook-endpoint.ts',
  summary: 'Register a webhook endpoint (its secret is shown this once)',
  tag: 'Webhooks',
  requestBody: { mediaType: 'json' },
  success: {
    status: 201,
    description: 'The endpoint and its signing secret, shown this once.',
    mediaType: 'json',
    headers: { Location: 'Relative URL of the endpoint.' },
  },
  errorStatuses: [400, 409],
  access: { tables: { inventory: 'read-write' }, webhookSecrets: 'seal-and-open' },
} as const satisfies RouteDefinition;

export const getWebhookEndpointRoute = {
  operationId: 'getWebhookEndpoint',
  method: 'GET',
  path: '/v1/webhooks/endpoints/{id}',
  scope: 'webhooks:read',
  submission: false,
  handler: 'functions/http/webhooks/get-webhook-endpoint.ts',
  summary: 'Read a webhook endpoint',
  tag: 'Webhooks',
  success: { status: 200, description: 'The endpoint (never its secret).', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read' } },
} as const satisfies RouteDefinition;

export const replaceWebhookEndpointRoute = {
  operationId: 'replaceWebhookEndpoint',
  method: 'PUT',
  path: '/v1/webhooks/endpoints/{id}',
  scope: 'webhooks:write',
  submission: false,
  handler: 'functions/http/webhooks/replace-webhook-endpoint.ts',
  summary: 'Replace a webhook endpoint (enable, disable, change its URL or types)',
  tag: 'Webhooks',
  requestBody: { mediaType: 'json' },
  success: { status: 200, description: 'The endpoint as replaced.', mediaType: 'json' },
  errorStatuses: [400, 404],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const deleteWebhookEndpointRoute = {
  operationId: 'deleteWebhookEndpoint',
  method: 'DELETE',
  path: '/v1/webhooks/endpoints/{id}',
  scope: 'webhooks:write',
  submission: false,
  handler: 'functions/http/webhooks/delete-webhook-endpoint.ts',
  summary: 'Delete a webhook endpoint (no attempt starts after it)',
  tag: 'Webhooks',
  success: { status: 204, description: 'Deleted.', mediaType: 'none' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read-write' } },
} as const satisfies RouteDefinition;

export const rotateWebhookSecretRoute = {
  operationId: 'rotateWebhookSecret',
  method: 'POST',
  path: '/v1/webhooks/endpoints/{id}/secret-rotations',
  scope: 'webhooks:write',
  submission: false,
  handler: 'functions/http/webhooks/rotate-webhook-secret.ts',
  summary: 'Rotate the signing secret (the old one signs beside it for 24 h)',
  tag: 'Webhooks',
  success: { status: 200, description: 'The new secret, shown this once.', mediaType: 'json' },
  errorStatuses: [404],
  access: { tables: { inventory: 'read-write' }, webhookSecrets: 'seal-and-open' },
} as const satisfies RouteDefinition;

export const listWebhookDeliveriesRoute = {
  operationId: 'listWebhookDeliveries',
  method: 'GET',
  path: '/v1/webhooks/endpoints/{id}/deliveries',
  scope: 'webhooks:read',
  submission: false,
  handler: 'functions/http/webhooks/list-webhook-deliveries.ts',
  summary: 'List the delivery attempts of an endpoint, newest first',
  tag: 'Webhooks',
  success: { status: 200, description: 'A page of attempts, newest first; a filtered page may hold fewer than `limit`.', mediaType: 'json' },
  errorStatuses: [400, 404],
  access: { tables: { inventory: 'read' }, cursorSecret: true },
} as const satisfies RouteDefinition;

export const replayWebhookEventsRoute = {
  operationId: 'replayWebhookEvents',
  method: 'POST',
  path: '/v1/webhooks/endpoints/{id}/replays',
  scope: 'webhooks:write',
  submission: false,
  handler: 'functions/http/webhooks/replay-webhook-events.ts',
  summary: 'Send the retained events after a point again, in feed order',
  tag: 'Webhooks',
  requestBody: { mediaType: 'json' },
  success: { status: 202, description: 'The replay was accepted; its deliveries follow in the log.', mediaType: 'json' },
  errorStatuses: [400, 404, 409],
  access: { tables: { inventory: 'read-write' }, queues: { webhooks: 'send' } },
} as const satisfies RouteDefinition;

export const WEBHOOK_ROUTES = [
  listWebhookEndpointsRoute,
  createWebhookEndpointRoute,
  getWebhookEndpointRoute,
  replaceWebhookEndpointRoute,
  deleteWebhookEndpointRoute,
  rotateWebhookSecretRoute,
  listWebhookDeliveriesRoute,
  replayWebhookEventsRoute,
] as const satisfies readonly RouteDefinition[];
