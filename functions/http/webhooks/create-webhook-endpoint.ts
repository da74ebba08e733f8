import { secretSealingWriteChainDependencies } from '../../../lib/app/composition-writes.ts';
import { createWebhookEndpointContract } from '../../../lib/webhooks/contracts/create-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { createWebhookEndpointRoute } from '../../../lib/webhooks/routes.ts';
import { publicEndpoint, lazySecretBox, webhookCommands } from './commands.ts';

const secrets = lazySecretBox();
const commands = webhookCommands(secrets);

export const handler = createOperationHandler(
  bindOperation(createWebhookEndpointRoute, createWebhookEndpointContract),
  secretSealingWriteChainDependencies(secrets),
  async ({ body, principal, commit }) =>
    commit(
      () => commands.create(principal.organizationId, body),
      ({ endpoint, secret }) => ({
        status: 201,
        json: { ...publicEndpoint(endpoint), secret },
        headers: { Location: `/v1/webhooks/endpoints/${endpoint.id}` },
      }),
      // The response shows the secret: its idempotency record keeps it sealed (docs/webhooks.md "Secrets").
      { confidentialResponse: true },
    ),
);
