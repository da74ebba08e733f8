import { endpointBody, endpointPath } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const replaceWebhookEndpointContract = defineOperation({ operationId: 'replaceWebhookEndpoint', request: { path: endpointPath, body: endpointBody } });
