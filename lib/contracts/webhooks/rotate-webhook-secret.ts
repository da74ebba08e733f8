import { endpointPath } from '../webhooks.ts';
import { defineOperation } from '../operation.ts';

/** docs/webhooks.md. */
export const rotateWebhookSecretContract = defineOperation({ operationId: 'rotateWebhookSecret', request: { path: endpointPath } });
