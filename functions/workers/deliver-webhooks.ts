import middy from '@middy/core';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { requiredEnv } from '../../lib/platform/config/env.ts';
import { webhookAllowLoopback, webhookFirstRetrySeconds, webhookTestResolve } from '../../lib/platform/config/webhooks.ts';
import { ATTEMPT_READS_IN_SERVICE, AttemptCaches } from '../../lib/webhooks/domain/attempt-reads.ts';
import { DeliveryWorker } from '../../lib/webhooks/domain/deliver.ts';
import { createDeliveryQueueHandler, type DeliveryInvocationPorts } from '../../lib/webhooks/delivery-queue-handler.ts';
import { log, logger } from '../../lib/platform/observability/log.ts';
import { metrics, WebhookAttemptTally } from '../../lib/platform/observability/metrics.ts';
import { TABLES, WEBHOOK_QUEUE } from '../../lib/platform/storage/tables.ts';
import { GateMemory, WebhookAttemptGate } from '../../lib/webhooks/store/webhook-attempt-gate.ts';
import { FAIR_SHARES_IN_SERVICE } from '../../lib/webhooks/domain/fair-share.ts';
import { WebhookDeliveriesStore } from '../../lib/webhooks/store/webhook-deliveries-store.ts';
import { WebhookEndpointsStore, WebhookReplaysStore } from '../../lib/webhooks/store/webhook-endpoints-store.ts';
import { CoalescingDeliveryQueue, WebhookDeliveryQueue, WebhookEventSource } from '../../lib/webhooks/store/webhook-queue.ts';
import { WebhookReplayLoad } from '../../lib/webhooks/store/webhook-replay-load.ts';
import { webhookSecretBox } from '../../lib/webhooks/store/webhook-secrets.ts';
import { createWebhookSender, resolveWithFixedAnswers, WEBHOOK_TIMEOUT_MS } from '../../lib/webhooks/transport/webhook-sender.ts';

/**
 * The webhook delivery worker (docs/webhooks.md "Delivery"): attempts and replay pages, each
 * message on its own. At module scope only clients, settings and caches (a Lambda container's
 * cold start); whatever batches writes is built per invocation, so two invocations never share
 * a request here either, as they cannot on Lambda.
 */
const table = requiredEnv(TABLES.inventory.envVar);
const endpoints = new WebhookEndpointsStore(table, requiredEnv(TABLES.audit.envVar));
const events = new WebhookEventSource(requiredEnv(TABLES.events.envVar));
const queue = new WebhookDeliveryQueue(requiredEnv(WEBHOOK_QUEUE.envVar));
const replays = new WebhookReplaysStore(table);
const load = new WebhookReplayLoad(table);
const secrets = webhookSecretBox();
// Local tests only (WEBHOOK_TEST_RESOLVE): fixed DNS answers, so a refusal at delivery can be shown end to end.
const testAnswers = webhookTestResolve();
const sender = createWebhookSender({ allowLoopback: webhookAllowLoopback(), ...(testAnswers ? { resolve: resolveWithFixedAnswers(testAnswers) } : {}) });
const firstRetrySeconds = webhookFirstRetrySeconds();
const readCaches = new AttemptCaches(ATTEMPT_READS_IN_SERVICE);
const gateMemory = new GateMemory();

function invocationPorts(): DeliveryInvocationPorts {
  const deliveries = new WebhookDeliveriesStore(table);
  const attempts = new WebhookAttemptTally();
  const worker = new DeliveryWorker({
    endpoints,
    deliveries,
    events,
    queue: new CoalescingDeliveryQueue(queue),
    secrets,
    send: (input) => sender.send(input),
    attemptDeadlineMs: WEBHOOK_TIMEOUT_MS,
    readCaches,
    // The gate's counters go by generations of the attempt deadline plus the time settling may take: a slot never given back (its worker died) stops counting two generations later.
    ...(FAIR_SHARES_IN_SERVICE
      ? {
          gate: new WebhookAttemptGate(table, {
            leaseMs: WEBHOOK_TIMEOUT_MS + 30_000,
            memory: gateMemory,
            log: (message, details) => log('warn', message, details),
          }),
        }
      : {}),
    ...(firstRetrySeconds === undefined ? {} : { firstRetrySeconds }),
    observe: attempts.observe,
    log: (message, details) => log('warn', message, details),
  });
  return { worker, replay: { replays, endpoints, events, deliveries, queue, load }, afterInvocation: () => attempts.flush() };
}

export const handler = middy<SQSEvent, SQSBatchResponse, Error, Context>()
  .use(injectLambdaContext(logger, { resetKeys: true }))
  // The invocation's attempts are tallied in its ports and flushed as the handler ends, before logMetrics' flush.
  .use(logMetrics(metrics))
  .handler(createDeliveryQueueHandler(invocationPorts));
