import type { WEBHOOK_ROUTES } from '../../../webhooks/routes.ts';
import { createWebhookEndpointContract } from '../../../webhooks/contracts/create-webhook-endpoint.ts';
import { deleteWebhookEndpointContract } from '../../../webhooks/contracts/delete-webhook-endpoint.ts';
import { getWebhookEndpointContract } from '../../../webhooks/contracts/get-webhook-endpoint.ts';
import { listWebhookDeliveriesContract } from '../../../webhooks/contracts/list-webhook-deliveries.ts';
import { listWebhookEndpointsContract } from '../../../webhooks/contracts/list-webhook-endpoints.ts';
import { replaceWebhookEndpointContract } from '../../../webhooks/contracts/replace-webhook-endpoint.ts';
import { replayWebhookEventsContract } from '../../../webhooks/contracts/replay-webhook-events.ts';
import {
  createdWebhookEndpointSchema,
  webhookDeliveriesPageSchema,
  webhookEndpointSchema,
  webhookEndpointsPageSchema,
  webhookReplaySchema,
  webhookSecretSchema,
} from '../../../webhooks/contracts/responses.ts';
import { rotateWebhookSecretContract } from '../../../webhooks/contracts/rotate-webhook-secret.ts';
import type { OpenApiArea } from './types.ts';

/** The Webhooks area in the OpenAPI document. */
export const webhooksOpenApi = {
  tag: {
    name: 'Webhooks',
    description:
      'Register endpoints that receive the event catalog as signed POSTs (Standard Webhooks), rotate their secrets, read the delivery log and replay events.',
  },
  operations: {
    listWebhookEndpoints: { contract: listWebhookEndpointsContract, response: webhookEndpointsPageSchema },
    createWebhookEndpoint: { contract: createWebhookEndpointContract, response: createdWebhookEndpointSchema },
    getWebhookEndpoint: { contract: getWebhookEndpointContract, response: webhookEndpointSchema },
    replaceWebhookEndpoint: { contract: replaceWebhookEndpointContract, response: webhookEndpointSchema },
    // 204: no body.
    deleteWebhookEndpoint: { contract: deleteWebhookEndpointContract, response: undefined },
    rotateWebhookSecret: { contract: rotateWebhookSecretContract, response: webhookSecretSchema },
    listWebhookDeliveries: { contract: listWebhookDeliveriesContract, response: webhookDeliveriesPageSchema },
    replayWebhookEvents: { contract: replayWebhookEventsContract, response: webhookReplaySchema },
  },
  problemCodes: {
    createWebhookEndpoint: { 409: ['customer-api.webhooks.limit-reached'] },
    replayWebhookEvents: { 400: ['customer-api.events.unknown-checkpoint'], 409: ['customer-api.webhooks.replay-in-progress'] },
  },
} satisfies OpenApiArea<typeof WEBHOOK_ROUTES>;
