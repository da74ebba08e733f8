import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { replaceWebhookEndpointContract } from '../../../lib/contracts/webhooks/replace-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { replaceWebhookEndpointRoute } from '../../../lib/routes/webhooks.ts';
import { publicEndpoint, webhookCommands } from './commands.ts';

const commands = webhookCommands();

export const handler = createOperationHandler(bindOperation(replaceWebhookEndpointRoute, replaceWebhookEndpointContract), writeChainDependencies, async ({ path, body, principal, commit }) =>
  commit(
    () => commands.replace(principal.organizationId, path.id, body),
    (endpoint) => ({ status: 200, json: publicEndpoint(endpoint) }),
  ),
);
