import type { Context } from 'aws-lambda';
import { requiredEnv } from '../../lib/platform/config/env.ts';
import { sweepDueDeliveries } from '../../lib/webhooks/domain/due-sweep.ts';
import { describeError, log, startInvocation } from '../../lib/platform/observability/log.ts';
import { TABLES, WEBHOOK_QUEUE } from '../../lib/platform/storage/tables.ts';
import { dueSweepPortsOf } from '../../lib/webhooks/store/webhook-due-sweep-store.ts';
import { WebhookDeliveryQueue } from '../../lib/webhooks/store/webhook-queue.ts';

/**
 * The due-task sweep, every minute (docs/webhooks.md "The due-task sweep"): delivery tasks,
 * replays and the outbox's deliveries whose queue message was lost get it again.
 */

const ports = dueSweepPortsOf(requiredEnv(TABLES.inventory.envVar), new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar)), (what, error) =>
  log('warn', 'webhook delivery not swept this time', { ...what, error: describeError(error) }),
);

export const handler = async (_event?: unknown, context?: Context): Promise<void> => {
  startInvocation(context);
  const swept = await sweepDueDeliveries(ports);
  if (swept.tasks > 0 || swept.replays > 0 || swept.outbox > 0 || swept.errors > 0) log('info', 'webhook deliveries swept', { ...swept });
};
