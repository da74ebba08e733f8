import { endpointPath } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const deleteWebhookEndpointContract = defineOperation({ operationId: 'deleteWebhookEndpoint', request: { path: endpointPath } });
