import { requiredEnv } from '../../../lib/config/env.ts';
import { webhookAllowLoopback } from '../../../lib/config/webhooks.ts';
import type { SecretBox, WebhookEndpoint } from '../../../lib/domain/webhooks/endpoint.ts';
import { WebhookCommands } from '../../../lib/domain/webhooks/commands.ts';
import { TABLES } from '../../../lib/store/tables.ts';
import { WebhookEndpointsStore, WebhookReplaysStore } from '../../../lib/store/webhook-endpoints-store.ts';
import { webhookSecretBox } from '../../../lib/store/webhook-secrets.ts';
import { WebhookEventSource } from '../../../lib/store/webhook-queue.ts';
import type { StoreWrite } from '../../../lib/store/transaction-writer.ts';

/** The webhook commands a write function builds once, at cold start. */
export function webhookCommands(secrets: SecretBox = lazySecretBox()): WebhookCommands<StoreWrite> {
  const table = requiredEnv(TABLES.inventory.envVar);
  return new WebhookCommands({
    endpoints: new WebhookEndpointsStore(table),
    replays: new WebhookReplaysStore(table),
    events: new WebhookEventSource(requiredEnv(TABLES.events.envVar)),
    // Only create and rotate seal a secret; the others never open one.
    secrets,
    allowLoopback: webhookAllowLoopback(),
  });
}

export function lazySecretBox(): SecretBox {
  let box: ReturnType<typeof webhookSecretBox> | undefined;
  const get = () => (box ??= webhookSecretBox());
  return { seal: (secret, context) => get().seal(secret, context), open: (sealed, context) => get().open(sealed, context) };
}

/** The endpoint as the API shows it (a copy: never the stored object, never a secret). */
export const publicEndpoint = (endpoint: WebhookEndpoint): WebhookEndpoint => ({ ...endpoint, eventTypes: [...endpoint.eventTypes] });
