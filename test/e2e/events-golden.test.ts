import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../lib/events/contracts/events.ts';
import type { EventDraft } from '../../lib/platform/events/types.ts';
import { WebhookEventSource } from '../../lib/webhooks/store/webhook-queue.ts';
import { callApi, createTestKey, uniqueOrganization } from '../support/api.ts';
import { commit, eventDraft, tableName } from '../support/events.ts';

/**
 * Golden: the envelope text the feed serves over HTTP, and the webhook flows send, is the
 * envelope committed, byte for byte, for every event type of the catalog (docs/events.md
 * "Catalog"), whether its transaction stored it with others in one event batch or alone
 * (docs/events.md "How events are stored").
 */

/** Text that JSON writes in more than one way elsewhere: escapes, non-ASCII, astral characters. */
const TRICKY = 'quote " backslash \\ tab \t line\u2028sep é 漢字 🙂 </script>';

describe('served envelopes are the committed ones, byte for byte', () => {
  it('for every event type, batched and alone, over GET /v1/events and the webhook source', async () => {
    // Prepare
    const organizationId = uniqueOrganization();
    const { key } = await createTestKey({ organizationId, scopes: ['events:read'] });
    const drafts: EventDraft[] = EVENT_TYPES.map((type) => {
      const draft = eventDraft(type);
      return { ...draft, data: { ...draft.data, note: TRICKY, ratio: 0.1, big: 2 ** 53 - 1 } };
    });
    const batched = await commit(organizationId, drafts);
    const alone = await commit(organizationId, [eventDraft(EVENT_TYPES[0])]);
    const committed = [...batched.events, ...alone.events].map((event) => JSON.stringify(event));

    // Act
    const response = await callApi('/v1/events?limit=200', { key });
    const body = await response.text();
    const sent = await new WebhookEventSource(tableName('events')).readFrom(organizationId, 1, 200);

    // Assess
    expect(response.status, body).toBe(200);
    expect(body.includes(`[${committed.join(',')}]`), body.slice(0, 500)).toBe(true);
    expect(sent.map((event) => event.envelopeJson)).toEqual(committed);
    expect(new Set(sent.map((event) => event.type))).toEqual(new Set(EVENT_TYPES));
  });
});
