import { EVENT_TYPES } from '../../platform/events/types.ts';
import * as z from '../../platform/contracts/zod.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { cursorParam, limitParam } from '../../platform/contracts/primitives.ts';

/** GET /v1/events query (docs/events.md "Reading the feed"). */
export const listEventsQuery = z.strictObject({
  limit: limitParam,
  cursor: cursorParam,
  // Not the catalog's `eventTypeSchema`: importing lib/events/contracts/events.ts would bundle every
  // event's schema into the feed function (every top-level zod call of a module survives tree-shaking).
  type: z.optional(z.enum(EVENT_TYPES)),
  afterEventId: z.optional(z.string().check(z.minLength(1), z.maxLength(64))),
});

export const listEventsContract = defineOperation({ operationId: 'listEvents', request: { query: listEventsQuery } });
