import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { deleteWebhookEndpointContract } from '../../../lib/contracts/webhooks/delete-webhook-endpoint.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { deleteWebhookEndpointRoute } from '../../../lib/routes/webhooks.ts';
import { webhookCommands } from './commands.ts';

const commands = webhookCommands();

export const handler = createOperationHandler(bindOperation(deleteWebhookEndpointRoute, deleteWebhookEndpointContract), writeChainDependencies, async ({ path, principal, commit }) =>
  commit(
    () => commands.delete(principal.organizationId, path.id),
    () => ({ status: 204, empty: true }),
  ),
);
