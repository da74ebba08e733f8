import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { rotateWebhookSecretContract } from '../../../lib/contracts/webhooks/rotate-webhook-secret.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { rotateWebhookSecretRoute } from '../../../lib/routes/webhooks.ts';
import { webhookCommands } from './commands.ts';

const commands = webhookCommands();

export const handler = createOperationHandler(bindOperation(rotateWebhookSecretRoute, rotateWebhookSecretContract), writeChainDependencies, async ({ path, principal, commit }) =>
  commit(
    () => commands.rotateSecret(principal.organizationId, path.id),
    ({ secret }) => ({ status: 200, json: { secret } }),
  ),
);
