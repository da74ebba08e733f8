import { secretSealingWriteChainDependencies } from '../../../lib/composition-writes.ts';
import { rotateWebhookSecretContract } from '../../../lib/contracts/webhooks/rotate-webhook-secret.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { rotateWebhookSecretRoute } from '../../../lib/routes/webhooks.ts';
import { lazySecretBox, webhookCommands } from './commands.ts';

const secrets = lazySecretBox();
const commands = webhookCommands(secrets);

export const handler = createOperationHandler(bindOperation(rotateWebhookSecretRoute, rotateWebhookSecretContract), secretSealingWriteChainDependencies(secrets), async ({ path, principal, commit }) =>
  commit(
    () => commands.rotateSecret(principal.organizationId, path.id),
    ({ secret }) => ({ status: 200, json: { secret } }),
    // The response shows the secret: its idempotency record keeps it sealed (docs/webhooks.md "Secrets").
    { confidentialResponse: true },
  ),
);
