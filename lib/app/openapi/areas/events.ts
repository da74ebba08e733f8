import type { EVENT_ROUTES } from '../../../events/routes.ts';
import { eventsPageSchema } from '../../../events/contracts/events.ts';
import { listEventsContract } from '../../../events/contracts/feed.ts';
import type { OpenApiArea } from './types.ts';

/** The Events area (the pull feed) in the OpenAPI document. */
export const eventsOpenApi = {
  tag: { name: 'Events', description: 'Pull feed of domain change events (the catalog webhooks push).' },
  operations: {
    listEvents: { contract: listEventsContract, response: eventsPageSchema },
  },
  problemCodes: {
    listEvents: { 400: ['customer-api.events.unknown-checkpoint', 'customer-api.events.cursor-expired'] },
  },
} satisfies OpenApiArea<typeof EVENT_ROUTES>;
