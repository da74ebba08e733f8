import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { deleteWebhookEndpointContract } from '../../../lib/webhooks/contracts/delete-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { deleteWebhookEndpointRoute } from '../../../lib/webhooks/routes.ts';
import { webhookCommands } from './commands.ts';

const commands = webhookCommands();

export const handler = createOperationHandler(
  bindOperation(deleteWebhookEndpointRoute, deleteWebhookEndpointContract),
  writeChainDependencies,
  async ({ path, principal, commit }) =>
    commit(
      () => commands.delete(principal.organizationId, path.id),
      () => ({ status: 204, empty: true }),
    ),
);
