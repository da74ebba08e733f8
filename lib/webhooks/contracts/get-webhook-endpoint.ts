import { endpointPath } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const getWebhookEndpointContract = defineOperation({ operationId: 'getWebhookEndpoint', request: { path: endpointPath } });
