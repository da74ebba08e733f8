import * as z from '../../platform/contracts/zod.ts';
import { EVENT_TYPES } from '../../platform/events/types.ts';
import { WEBHOOK_DESCRIPTION_MAX_LENGTH, WEBHOOK_URL_MAX_LENGTH } from '../domain/endpoint.ts';
import { cursorParam, dateTimeString, idParam, limitParam } from '../../platform/contracts/primitives.ts';

/**
 * Request schemas of the webhook operations (docs/webhooks.md); each operation's contract is in
 * lib/webhooks/contracts/<operation>.ts, the response bodies in lib/webhooks/contracts/responses.ts.
 */

export const endpointPath = z.strictObject({ id: idParam });

/** Create and replace take the same body; an unknown event type is a 400. */
export const endpointBody = /* @__PURE__ */ (() =>
  z.strictObject({
    url: z.string().check(z.minLength(1), z.maxLength(WEBHOOK_URL_MAX_LENGTH)),
    eventTypes: z.optional(z.array(z.enum(EVENT_TYPES, { message: `Must be one of: ${EVENT_TYPES.join(', ')}.` })).check(z.maxLength(EVENT_TYPES.length * 2))),
    description: z.optional(z.string().check(z.maxLength(WEBHOOK_DESCRIPTION_MAX_LENGTH))),
    enabled: z.optional(z.boolean()),
  }))();

export const listEndpointsQuery = /* @__PURE__ */ (() => z.strictObject({ limit: limitParam, cursor: cursorParam }))();

export const DELIVERY_STATUSES = ['succeeded', 'failed', 'pending'] as const;

export const listDeliveriesQuery = /* @__PURE__ */ (() =>
  z.strictObject({
    eventId: z.optional(z.string().check(z.regex(/^evt_[0-9A-Z]{26}$/, { message: 'Not an event id.' }))),
    status: z.optional(z.enum(DELIVERY_STATUSES, { message: `Must be one of: ${DELIVERY_STATUSES.join(', ')}.` })),
    limit: limitParam,
    cursor: cursorParam,
  }))();

/** `{ afterEventId }` or `{ fromUtc }`, exactly one. */
export const replayBody = /* @__PURE__ */ (() =>
  z.union([z.strictObject({ afterEventId: z.string().check(z.minLength(1), z.maxLength(64)) }), z.strictObject({ fromUtc: dateTimeString })]))();
