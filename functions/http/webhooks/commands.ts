import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { webhookAllowLoopback } from '../../../lib/platform/config/webhooks.ts';
import type { SecretBox, WebhookEndpoint } from '../../../lib/webhooks/domain/endpoint.ts';
import { WebhookCommands } from '../../../lib/webhooks/domain/commands.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';
import { WebhookEndpointsStore, WebhookReplaysStore } from '../../../lib/webhooks/store/webhook-endpoints-store.ts';
import { webhookSecretBox } from '../../../lib/webhooks/store/webhook-secrets.ts';
import { WebhookEventSource } from '../../../lib/webhooks/store/webhook-queue.ts';
import type { StoreWrite } from '../../../lib/platform/dynamo/transaction-writer.ts';

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
