import { endpointPath } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const rotateWebhookSecretContract = defineOperation({ operationId: 'rotateWebhookSecret', request: { path: endpointPath } });
