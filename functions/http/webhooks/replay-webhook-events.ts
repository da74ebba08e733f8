import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { replayWebhookEventsContract } from '../../../lib/contracts/webhooks/replay-webhook-events.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { replayWebhookEventsRoute } from '../../../lib/routes/webhooks.ts';
import { WEBHOOK_QUEUE } from '../../../lib/store/tables.ts';
import { WebhookDeliveryQueue } from '../../../lib/store/webhook-queue.ts';
import { webhookCommands } from './commands.ts';

const commands = webhookCommands();
const queue = new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar));

export const handler = createOperationHandler(bindOperation(replayWebhookEventsRoute, replayWebhookEventsContract), writeChainDependencies, async ({ path, body, principal, commit }) => {
  const plan = await commands.replay(principal.organizationId, path.id, body);
  const replay = plan.result;
  // Sent before the commit, so a committed replay always has its message; the worker drops the
  // message of a replay that never committed (docs/webhooks.md "Replaying").
  await queue.send([{ message: { kind: 'replay', organizationId: replay.organizationId, replayId: replay.id, sentAt: Date.now() }, delaySeconds: 0 }]);
  return commit(
    async () => plan,
    () => ({
      status: 202,
      json: { id: replay.id, endpointId: replay.endpointId, afterEventId: 'afterEventId' in body ? body.afterEventId : null, fromUtc: replay.fromUtc, createdAt: replay.createdAt },
    }),
  );
});
