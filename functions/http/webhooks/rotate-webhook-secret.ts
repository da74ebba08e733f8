import { secretSealingWriteChainDependencies } from '../../../lib/app/composition-writes.ts';
import { rotateWebhookSecretContract } from '../../../lib/webhooks/contracts/rotate-webhook-secret.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { rotateWebhookSecretRoute } from '../../../lib/webhooks/routes.ts';
import { lazySecretBox, webhookCommands } from './commands.ts';

const secrets = lazySecretBox();
const commands = webhookCommands(secrets);

export const handler = createOperationHandler(
  bindOperation(rotateWebhookSecretRoute, rotateWebhookSecretContract),
  secretSealingWriteChainDependencies(secrets),
  async ({ path, principal, commit }) =>
    commit(
      () => commands.rotateSecret(principal.organizationId, path.id),
      ({ secret }) => ({ status: 200, json: { secret } }),
      // The response shows the secret: its idempotency record keeps it sealed (docs/webhooks.md "Secrets").
      { confidentialResponse: true },
    ),
);
