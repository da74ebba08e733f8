import { endpointPath, replayBody } from './webhooks.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';

/** docs/webhooks.md. */
export const replayWebhookEventsContract = defineOperation({ operationId: 'replayWebhookEvents', request: { path: endpointPath, body: replayBody } });
