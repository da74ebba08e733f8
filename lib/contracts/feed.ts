import * as z from 'zod';
import { EVENT_TYPES } from './event-constants.ts';
import { defineOperation } from './operation.ts';
import { cursorParam, limitParam } from './primitives.ts';

/** GET /v1/events query (docs/events.md "Reading the feed"). */
export const listEventsQuery = z.strictObject({
  limit: limitParam,
  cursor: cursorParam,
  // Not the catalog's `eventTypeSchema`: importing lib/contracts/events.ts would bundle every
  // event's schema into the feed function (see lib/contracts/event-constants.ts).
  type: z.enum(EVENT_TYPES).optional(),
  afterEventId: z.string().min(1).max(64).optional(),
});

export const listEventsContract = defineOperation({ operationId: 'listEvents', request: { query: listEventsQuery } });
