import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { replaceWebhookEndpointContract } from '../../../lib/webhooks/contracts/replace-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { replaceWebhookEndpointRoute } from '../../../lib/webhooks/routes.ts';
import { publicEndpoint, webhookCommands } from './commands.ts';

const commands = webhookCommands();

export const handler = createOperationHandler(
  bindOperation(replaceWebhookEndpointRoute, replaceWebhookEndpointContract),
  writeChainDependencies,
  async ({ path, body, principal, commit }) =>
    commit(
      () => commands.replace(principal.organizationId, path.id, body),
      (endpoint) => ({ status: 200, json: publicEndpoint(endpoint) }),
    ),
);
