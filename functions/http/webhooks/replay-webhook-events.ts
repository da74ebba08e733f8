import { writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { replayWebhookEventsContract } from '../../../lib/webhooks/contracts/replay-webhook-events.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { commitReplayRequest } from '../../../lib/webhooks/domain/replay-request.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { log } from '../../../lib/platform/observability/log.ts';
import { replayWebhookEventsRoute } from '../../../lib/webhooks/routes.ts';
import { WEBHOOK_QUEUE } from '../../../lib/platform/storage/tables.ts';
import { WebhookDeliveryQueue } from '../../../lib/webhooks/store/webhook-queue.ts';
import { webhookCommands } from './commands.ts';

const commands = webhookCommands();
const replayPorts = {
  queue: new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar)),
  log: (message: string, fields: Record<string, unknown>) => log('error', message, fields),
};

export const handler = createOperationHandler(
  bindOperation(replayWebhookEventsRoute, replayWebhookEventsContract),
  writeChainDependencies,
  async ({ path, body, principal, commit }) => {
    const plan = await commands.replay(principal.organizationId, path.id, body);
    const replay = plan.result;
    // The first page's message only once the replay committed (docs/webhooks.md "Replaying").
    return commitReplayRequest(replayPorts, replay, () =>
      commit(
        async () => plan,
        () => ({
          status: 202,
          json: {
            id: replay.id,
            endpointId: replay.endpointId,
            afterEventId: 'afterEventId' in body ? body.afterEventId : null,
            fromUtc: replay.fromUtc,
            createdAt: replay.createdAt,
          },
        }),
      ),
    );
  },
);
