import * as z from 'zod';
import { eventsPageSchema, eventTypeSchema } from './events.ts';
import { defineOperation } from './operation.ts';
import { cursorParam, limitParam } from './primitives.ts';

/** GET /v1/events query (seed §4 Events feed). */
export const listEventsQuery = z.strictObject({
  limit: limitParam,
  cursor: cursorParam,
  type: eventTypeSchema.optional(),
  afterEventId: z.string().min(1).max(64).optional(),
});

export const listEventsContract = defineOperation({ operationId: 'listEvents', request: { query: listEventsQuery }, response: eventsPageSchema });
