import { endpointBody } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const createWebhookEndpointContract = defineOperation({ operationId: 'createWebhookEndpoint', request: { body: endpointBody } });
