import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { createWebhookEndpointContract } from '../../../lib/contracts/webhooks/create-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { createWebhookEndpointRoute } from '../../../lib/routes/webhooks.ts';
import { publicEndpoint, webhookCommands } from './commands.ts';

const commands = webhookCommands();

export const handler = createOperationHandler(bindOperation(createWebhookEndpointRoute, createWebhookEndpointContract), writeChainDependencies, async ({ body, principal, commit }) =>
  commit(
    () => commands.create(principal.organizationId, body),
    ({ endpoint, secret }) => ({ status: 201, json: { ...publicEndpoint(endpoint), secret }, headers: { Location: `/v1/webhooks/endpoints/${endpoint.id}` } }),
  ),
);
