import { listEndpointsQuery } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const listWebhookEndpointsContract = defineOperation({ operationId: 'listWebhookEndpoints', request: { query: listEndpointsQuery } });
