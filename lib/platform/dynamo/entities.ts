// The platform's own stored kinds (API keys, idempotency, rate limits, events, audit entries, sweep positions) and the
// webhook delivery gate's two; each area declares its own in lib/<area>/store/entities.ts (docs/architecture.md).
import { defineEntity } from './entity.ts';
import { keys, webhookGateWaitingKey } from './keys.ts';

/**
 * The kinds the platform's stores write, declared once: type tag, schema version, key and index
 * keys (see lib/platform/dynamo/entity.ts). Each is marked pure, so a function bundles only the
 * entities its stores use (docs/performance.md "Bundles"). Type tags and keys stay unique across
 * every declaration of the tree (test/unit/store/entity-registry.test.ts).
 */

export const apiKeyEntity = /* @__PURE__ */ defineEntity<{ keyHash: string; organizationId: string; createdAt: string; keyId: string }, { keyHash: string }>({
  type: 'api-key',
  schemaVersion: 1,
  key: ({ keyHash }) => keys.apiKeyByHash(keyHash),
  indexKeys: ({ organizationId, createdAt, keyId }) => ({ gsi1pk: keys.apiKeysOfOrganization(organizationId), gsi1sk: `${createdAt}#${keyId}` }),
});

/** Finds an API key's item by key id (`revoke <keyId>`). */
export const apiKeyPointerEntity = /* @__PURE__ */ defineEntity<{ keyId: string }>({
  type: 'api-key-pointer',
  schemaVersion: 1,
  key: ({ keyId }) => keys.apiKeyById(keyId),
});

export const idempotencyEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; keyHash: string }>({
  type: 'idempotency',
  schemaVersion: 1,
  key: ({ organizationId, keyHash }) => keys.idempotency(organizationId, keyHash),
});

/**
 * One part of an idempotency record's stored response that is too large for the record's item
 * (lib/platform/dynamo/idempotency-response-parts.ts), keyed `<record's key>#PART#<index>`: derived here, not
 * in `keys`, whose every key every function bundles, since only the BOM writes store parts.
 */
export const idempotencyResponsePartEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; keyHash: string; index: number }>({
  type: 'idempotency-response-part',
  schemaVersion: 1,
  key: ({ organizationId, keyHash, index }) => ({ pk: `${keys.idempotency(organizationId, keyHash).pk}#PART#${index}` }),
});

export const rateLimitCounterEntity = /* @__PURE__ */ defineEntity<{ keyId: string; windowSeconds: number; windowStartEpochSeconds: number }>({
  type: 'rate-limit-counter',
  schemaVersion: 2,
  key: ({ keyId, windowSeconds, windowStartEpochSeconds }) => keys.rateLimitCounter(keyId, windowSeconds, windowStartEpochSeconds),
});

/**
 * The events of one transaction, or of a size-bounded part of it, keyed by the LAST sequence
 * they hold (docs/events.md "How events are stored"; lib/platform/dynamo/event-batches.ts reads both shapes).
 * 3: a batch (`first`, `last`, `types`, `envelopes`). 2: one event (`sequence`, `type`,
 * `envelopeJson`); no longer written, read as a batch of one until TTL deletes it.
 */
export const eventBatchEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; lastSequence: number }>({
  type: 'event',
  schemaVersion: 3,
  key: ({ organizationId, lastSequence }) => keys.event(organizationId, lastSequence),
});

/** The organization's last committed event number (the feed's gapless counter). */
export const eventSequenceEntity = /* @__PURE__ */ defineEntity<{ organizationId: string }>({
  type: 'event-sequence',
  schemaVersion: 1,
  key: ({ organizationId }) => keys.eventSequence(organizationId),
});

export const auditEventEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; occurredAt: string; id: string; kind: string }>({
  type: 'audit-event',
  schemaVersion: 2,
  key: ({ organizationId, occurredAt, id }) => ({ pk: keys.auditOf(organizationId), sk: keys.auditSortKey(occurredAt, id) }),
  indexKeys: ({ organizationId, occurredAt, id, kind }) => ({ gsi1pk: keys.auditOfKind(organizationId, kind), gsi1sk: keys.auditSortKey(occurredAt, id) }),
});

/** Sort-key prefix of audit events (table and gsi1). */
export const AUDIT_PREFIX = 'AUD';

export const sweepPositionEntity = /* @__PURE__ */ defineEntity<{ sweep: string }>({
  type: 'sweep-position',
  schemaVersion: 1,
  key: ({ sweep }) => keys.sweepPosition(sweep),
});

/**
 * An organization's webhook attempts in flight, its credit and its endpoints' consecutive timeouts
 * (docs/webhooks.md "Fairness"): counters per generation, changed by atomic updates
 * (lib/webhooks/store/webhook-attempt-gate.ts). Version 1 held a map of leases written over its version.
 */
export const webhookGateEntity = /* @__PURE__ */ defineEntity<{ organizationId: string }>({
  type: 'webhook-gate',
  schemaVersion: 2,
  key: ({ organizationId }) => keys.webhookGate(organizationId),
});

/** The organizations waiting for the webhook delivery worker, each until when (docs/webhooks.md "Fairness"): one item for all. */
export const webhookGateWaitingEntity = /* @__PURE__ */ defineEntity<Record<string, never>>({
  type: 'webhook-gate-waiting',
  schemaVersion: 1,
  key: () => webhookGateWaitingKey,
});
