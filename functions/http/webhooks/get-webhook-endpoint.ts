import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { getWebhookEndpointContract } from '../../../lib/contracts/webhooks/get-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { WebhookReads } from '../../../lib/domain/webhooks/reads.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getWebhookEndpointRoute } from '../../../lib/routes/webhooks.ts';
import { TABLES } from '../../../lib/store/tables.ts';
import { WebhookEndpointsStore } from '../../../lib/store/webhook-endpoints-store.ts';

const reads = new WebhookReads({ endpoints: new WebhookEndpointsStore(requiredEnv(TABLES.inventory.envVar)) });

export const handler = createOperationHandler(bindOperation(getWebhookEndpointRoute, getWebhookEndpointContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.get(principal.organizationId, path.id),
}));
