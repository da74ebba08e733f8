import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { requiredEnv } from '../../lib/config/env.ts';
import { dispatchEvents } from '../../lib/domain/webhooks/dispatch.ts';
import { log, logger } from '../../lib/log.ts';
import { TABLES, WEBHOOK_QUEUE } from '../../lib/store/tables.ts';
import { WebhookDeliveriesStore } from '../../lib/store/webhook-deliveries-store.ts';
import { WebhookEndpointsStore } from '../../lib/store/webhook-endpoints-store.ts';
import { WebhookDeliveryQueue } from '../../lib/store/webhook-queue.ts';
import { committedEventsOf } from '../../lib/store/webhook-stream.ts';

/**
 * The webhook dispatcher (docs/webhooks.md "Delivery"): a batch of the events table's stream →
 * one delivery task per (endpoint, event), queued. Any failure fails the batch, which the event
 * source mapping retries (bisecting it): tasks are conditional puts, so a retry never doubles one.
 */
const table = requiredEnv(TABLES.inventory.envVar);
const planner = {
  endpoints: new WebhookEndpointsStore(table),
  deliveries: new WebhookDeliveriesStore(table),
  queue: new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar)),
};

export const handler = middy<DynamoDBStreamEvent, void, Error, Context>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const events = committedEventsOf(event.Records);
    if (events.length === 0) return;
    const queued = await dispatchEvents(planner, events);
    log('debug', 'webhook events dispatched', { events: events.length, queued });
  });
