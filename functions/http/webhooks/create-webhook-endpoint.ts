import { secretSealingWriteChainDependencies } from '../../../lib/composition-writes.ts';
import { createWebhookEndpointContract } from '../../../lib/contracts/webhooks/create-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { createWebhookEndpointRoute } from '../../../lib/routes/webhooks.ts';
import { publicEndpoint, lazySecretBox, webhookCommands } from './commands.ts';

const secrets = lazySecretBox();
const commands = webhookCommands(secrets);

export const handler = createOperationHandler(bindOperation(createWebhookEndpointRoute, createWebhookEndpointContract), secretSealingWriteChainDependencies(secrets), async ({ body, principal, commit }) =>
  commit(
    () => commands.create(principal.organizationId, body),
    ({ endpoint, secret }) => ({ status: 201, json: { ...publicEndpoint(endpoint), secret }, headers: { Location: `/v1/webhooks/endpoints/${endpoint.id}` } }),
    // The response shows the secret: its idempotency record keeps it sealed (docs/webhooks.md "Secrets").
    { confidentialResponse: true },
  ),
);
