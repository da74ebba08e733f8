// The webhooks area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Each is marked pure, so only webhook functions bundle them.
// The delivery gate's two kinds are declared in lib/platform/dynamo/entities.ts, beside its store's rewrite.
import { defineEntity } from '../../platform/dynamo/entity.ts';
import { padSequence } from '../../platform/dynamo/keys.ts';

/** The organization's webhook endpoints (docs/webhooks.md), by id, their counter and their running replays, in one partition. */
export const webhookEndpointsOf = (organizationId: string) => `ORG#${organizationId}#WEBHOOKS`;
/** Sort-key prefix of the endpoints in their partition. */
export const WEBHOOK_ENDPOINT_PREFIX = 'WHE';

/** A webhook endpoint (docs/webhooks.md "Registering"); its secrets only sealed (lib/webhooks/store/webhook-secrets.ts). */
export const webhookEndpointEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; endpointId: string }>({
  type: 'webhook-endpoint',
  schemaVersion: 1,
  key: ({ organizationId, endpointId }) => ({ pk: webhookEndpointsOf(organizationId), sk: `${WEBHOOK_ENDPOINT_PREFIX}#${endpointId}` }),
});

/** How many endpoints the organization has: the create's conditional increment keeps the limit under races. */
export const webhookEndpointCountEntity = /* @__PURE__ */ defineEntity<{ organizationId: string }>({
  type: 'webhook-endpoint-count',
  schemaVersion: 1,
  key: ({ organizationId }) => ({ pk: webhookEndpointsOf(organizationId), sk: 'COUNT' }),
});

/** One event to send to one endpoint (`live` for the dispatcher's, a replay id for a replay's), created once: by its first claim, or a replay's conditional put (docs/webhooks.md "Delivery"). */
export const webhookTaskEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; endpointId: string; sequence: number; origin: string }>({
  type: 'webhook-task',
  schemaVersion: 1,
  key: ({ organizationId, endpointId, sequence, origin }) => ({
    pk: `ORG#${organizationId}#WHTASK#${endpointId}`,
    sk: `SEQ#${padSequence(sequence)}#${origin}`,
  }),
});

/** An endpoint's delivery log, one entry per attempt; attempt ids are ULIDs, so a reverse scan is newest first. */
export const webhookAttemptsOf = (organizationId: string, endpointId: string) => `ORG#${organizationId}#WHLOG#${endpointId}`;
export const WEBHOOK_ATTEMPT_PREFIX = 'ATT';

/** One attempt in an endpoint's delivery log (30 days). */
export const webhookAttemptEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; endpointId: string; attemptId: string }>({
  type: 'webhook-attempt',
  schemaVersion: 1,
  key: ({ organizationId, endpointId, attemptId }) => ({ pk: webhookAttemptsOf(organizationId, endpointId), sk: `${WEBHOOK_ATTEMPT_PREFIX}#${attemptId}` }),
});

/** A replay asked for, and how far its worker has paged the feed. */
export const webhookReplayEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; replayId: string }>({
  type: 'webhook-replay',
  schemaVersion: 1,
  key: ({ organizationId, replayId }) => ({ pk: `ORG#${organizationId}#${replayId}`, sk: 'REPLAY' }),
});

/** The lock of an endpoint's one running replay (docs/webhooks.md "Replaying"), beside the endpoints: put with its replay, deleted when that replay ends. */
export const webhookActiveReplayEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; endpointId: string }>({
  type: 'webhook-active-replay',
  schemaVersion: 1,
  key: ({ organizationId, endpointId }) => ({ pk: webhookEndpointsOf(organizationId), sk: `REPLAYING#${endpointId}` }),
});

/** One item per run of an organization's sequences (first and last), in a partition of its own (lib/webhooks/store/webhook-outbox-store.ts). */
export const webhookOutboxEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; firstSequence: number; lastSequence: number }>({
  type: 'webhook-outbox',
  schemaVersion: 1,
  key: ({ organizationId, firstSequence, lastSequence }) => ({
    pk: `ORG#${organizationId}#WHOUTBOX`,
    sk: `SEQ#${padSequence(firstSequence)}#${padSequence(lastSequence)}`,
  }),
});

/**
 * The partitions of the webhook indexes (lib/webhooks/store/webhook-task-index.ts): gsi1's shards of
 * pending delivery tasks by the time their message counts as lost (docs/webhooks.md "The due-task
 * sweep"), of running replays, and of outbox items; gsi2's partition of an organization's replay
 * tasks not finished yet (what the replay cap counts).
 */
export const webhookIndexKeys = {
  dueTasksShard: (shard: number) => `WHTASK#DUE#${String(shard).padStart(2, '0')}`,
  runningReplaysShard: (shard: number) => `WHREPLAY#RUNNING#${String(shard).padStart(2, '0')}`,
  outboxDueShard: (shard: number) => `WHOUTBOX#DUE#${String(shard).padStart(2, '0')}`,
  replayTasksInFlightOf: (organizationId: string) => `ORG#${organizationId}#WHREPLAYTASKS`,
};
