import { endpointPath, listDeliveriesQuery } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const listWebhookDeliveriesContract = defineOperation({
  operationId: 'listWebhookDeliveries',
  request: { path: endpointPath, query: listDeliveriesQuery },
});
