import * as z from '../../platform/contracts/zod.ts';
import { EVENT_TYPES } from '../../platform/events/types.ts';

/** The success bodies of the webhook operations (docs/webhooks.md), for OpenAPI and the tests; no function imports them. */

const endpointFields = {
  id: z.string(),
  url: z.string(),
  description: z.string(),
  eventTypes: z.array(z.enum(EVENT_TYPES)).check(z.meta({ description: 'Empty: every event type.' })),
  status: z.enum(['enabled', 'disabled']),
  disabledReason: z.nullable(z.enum(['manual', 'gone', 'failing'])),
  createdAt: z.string(),
  updatedAt: z.string(),
};

export const webhookEndpointSchema = z.object(endpointFields).check(z.meta({ id: 'WebhookEndpoint' }));

export const createdWebhookEndpointSchema = z
  .object({ ...endpointFields, secret: z.string().check(z.meta({ description: '`whsec_` + base64 of 32 random bytes; shown this once.' })) })
  .check(z.meta({ id: 'CreatedWebhookEndpoint' }));

export const webhookEndpointsPageSchema = z
  .object({ data: z.array(webhookEndpointSchema), page: z.object({ nextCursor: z.nullable(z.string()) }) })
  .check(z.meta({ id: 'WebhookEndpointsPage' }));

export const webhookSecretSchema = z.object({ secret: z.string() }).check(z.meta({ id: 'WebhookSecret' }));

export const webhookDeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string(),
    eventType: z.string(),
    attempt: z.number().check(z.int()),
    status: z.enum(['succeeded', 'failed', 'pending']),
    responseStatus: z.nullable(z.number().check(z.int())),
    durationMs: z.nullable(z.number().check(z.int())),
    error: z.nullable(z.string()),
    attemptedAt: z.string(),
    nextAttemptAt: z.nullable(z.string()),
  })
  .check(z.meta({ id: 'WebhookDelivery' }));

export const webhookDeliveriesPageSchema = z
  .object({ data: z.array(webhookDeliverySchema), page: z.object({ nextCursor: z.nullable(z.string()) }) })
  .check(z.meta({ id: 'WebhookDeliveriesPage' }));

export const webhookReplaySchema = z
  .object({ id: z.string(), endpointId: z.string(), afterEventId: z.nullable(z.string()), fromUtc: z.nullable(z.string()), createdAt: z.string() })
  .check(z.meta({ id: 'WebhookReplay' }));
