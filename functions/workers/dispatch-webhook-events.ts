import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import type { Context, DynamoDBStreamEvent } from 'aws-lambda';
import { requiredEnv } from '../../lib/platform/config/env.ts';
import { dispatchEvents } from '../../lib/webhooks/domain/dispatch.ts';
import { log, logger } from '../../lib/platform/observability/log.ts';
import { TABLES, WEBHOOK_QUEUE } from '../../lib/platform/storage/tables.ts';
import { WebhookEndpointsStore } from '../../lib/webhooks/store/webhook-endpoints-store.ts';
import { WebhookOutboxStore } from '../../lib/webhooks/store/webhook-outbox-store.ts';
import { WebhookDeliveryQueue } from '../../lib/webhooks/store/webhook-queue.ts';
import { committedEventsOf } from '../../lib/webhooks/store/webhook-stream.ts';

/**
 * The webhook dispatcher (docs/webhooks.md "Delivery"): a batch of the events table's stream →
 * one message per (endpoint, event), after the batch's deliveries are in the outbox. Any failure
 * fails the batch, which the event source mapping retries (bisecting it): a delivery's first
 * claim creates its task, so a message sent twice never delivers twice. The outbox store, whose
 * puts go many to a request, is the invocation's own (docs/webhooks.md "Delivery").
 */
const table = requiredEnv(TABLES.inventory.envVar);
const endpoints = new WebhookEndpointsStore(table);
const queue = new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar));

export const handler = middy<DynamoDBStreamEvent, void, Error, Context>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  .handler(async (event) => {
    const events = committedEventsOf(event.Records);
    if (events.length === 0) return;
    const queued = await dispatchEvents({ endpoints, outbox: new WebhookOutboxStore(table), queue }, events);
    log('debug', 'webhook events dispatched', { events: events.length, queued });
  });
