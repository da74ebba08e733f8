import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { replayWebhookEventsContract } from '../../../lib/contracts/webhooks/replay-webhook-events.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { commitReplayRequest } from '../../../lib/domain/webhooks/replay-request.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { log } from '../../../lib/log.ts';
import { replayWebhookEventsRoute } from '../../../lib/routes/webhooks.ts';
import { WEBHOOK_QUEUE } from '../../../lib/store/tables.ts';
import { WebhookDeliveryQueue } from '../../../lib/store/webhook-queue.ts';
import { webhookCommands } from './commands.ts';

const commands = webhookCommands();
const replayPorts = { queue: new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar)), log: (message: string, fields: Record<string, unknown>) => log('error', message, fields) };

export const handler = createOperationHandler(bindOperation(replayWebhookEventsRoute, replayWebhookEventsContract), writeChainDependencies, async ({ path, body, principal, commit }) => {
  const plan = await commands.replay(principal.organizationId, path.id, body);
  const replay = plan.result;
  // The first page's message only once the replay committed (docs/webhooks.md "Replaying").
  return commitReplayRequest(replayPorts, replay, () =>
    commit(
      async () => plan,
      () => ({
        status: 202,
        json: { id: replay.id, endpointId: replay.endpointId, afterEventId: 'afterEventId' in body ? body.afterEventId : null, fromUtc: replay.fromUtc, createdAt: replay.createdAt },
      }),
    ),
  );
});
