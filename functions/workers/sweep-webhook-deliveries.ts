import type { Context } from 'aws-lambda';
import { requiredEnv } from '../../lib/config/env.ts';
import { sweepDueDeliveries } from '../../lib/domain/webhooks/due-sweep.ts';
import { describeError, log, startInvocation } from '../../lib/log.ts';
import { TABLES, WEBHOOK_QUEUE } from '../../lib/store/tables.ts';
import { WebhookDueSweepStore } from '../../lib/store/webhook-due-sweep-store.ts';
import { WebhookDeliveryQueue } from '../../lib/store/webhook-queue.ts';

/**
 * The due-task sweep, every minute (docs/webhooks.md "The due-task sweep"): delivery tasks and
 * replays whose queue message was lost get it again.
 */

const store = new WebhookDueSweepStore(requiredEnv(TABLES.inventory.envVar));
const queue = new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar));

export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const swept = await sweepDueDeliveries({
    dueTasks: (now, limit) => store.dueTasks(now, limit),
    leaseTask: (entry, next) => store.leaseTask(entry, next),
    stalledReplays: (now, limit) => store.stalledReplays(now, limit),
    leaseReplay: (entry, next) => store.leaseReplay(entry, next),
    queue,
    onError: (what, error) => log('warn', 'webhook delivery not swept this time', { ...what, error: describeError(error) }),
  });
  if (swept.tasks > 0 || swept.replays > 0 || swept.errors > 0) log('info', 'webhook deliveries swept', { ...swept });
};
