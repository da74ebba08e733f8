import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { getWebhookEndpointContract } from '../../../lib/webhooks/contracts/get-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { WebhookReads } from '../../../lib/webhooks/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getWebhookEndpointRoute } from '../../../lib/webhooks/routes.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';
import { WebhookEndpointsStore } from '../../../lib/webhooks/store/webhook-endpoints-store.ts';

const reads = new WebhookReads({ endpoints: new WebhookEndpointsStore(requiredEnv(TABLES.inventory.envVar)) });

export const handler = createOperationHandler(
  bindOperation(getWebhookEndpointRoute, getWebhookEndpointContract),
  chainDependencies,
  async ({ path, principal }) => ({
    status: 200,
    json: await reads.get(principal.organizationId, path.id),
  }),
);
