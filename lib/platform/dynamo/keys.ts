/**
 * The keys of the platform's own stored kinds (lib/platform/dynamo/entities.ts), and what every
 * flow's keys share: the sequence padding and the active-jobs shards. Each area derives its own
 * keys in its lib/<area>/store/entities.ts (docs/architecture.md "Storage: the entity layer").
 * Organization ids are part of every tenant key, so no query can cross tenants.
 */

const SEQUENCE_DIGITS = 12;

/**
 * Partitions of the active-jobs index (lib/platform/storage/tables.ts `ACTIVE_JOBS_INDEX`): a job's shard
 * comes from its id, so jobs of every tenant spread evenly and the sweeper reads each shard.
 */
export const ACTIVE_JOB_SHARDS = 16;

/** The shard of a job's entry in the active-jobs index. */
export function activeJobShardOf(jobId: string): number {
  // FNV-1a: ids share their time prefix, and every character must move the shard.
  let hash = 0x811c9dc5;
  for (let index = 0; index < jobId.length; index += 1) hash = Math.imul(hash ^ jobId.charCodeAt(index), 0x01000193) >>> 0;
  return hash % ACTIVE_JOB_SHARDS;
}

/** The highest sequence number the sort key's padding holds. */
export const MAX_SEQUENCE = 10 ** SEQUENCE_DIGITS - 1;

export function padSequence(sequence: number): string {
  return String(sequence).padStart(SEQUENCE_DIGITS, '0');
}

export const keys = {
  apiKeyByHash: (keyHash: string) => ({ pk: `KEYHASH#${keyHash}` }),
  apiKeyById: (keyId: string) => ({ pk: `KEYID#${keyId}` }),
  apiKeysOfOrganization: (organizationId: string) => `ORG#${organizationId}`,

  /** `keyHash` is the SHA-256 of the client's Idempotency-Key, so any key length fits. */
  idempotency: (organizationId: string, keyHash: string) => ({ pk: `IDEM#${organizationId}#${keyHash}` }),

  /** One counter item per API key and fixed window, holding a count per policy of that window's length. */
  rateLimitCounter: (keyId: string, windowSeconds: number, windowStartEpochSeconds: number) => ({
    pk: `RL#${keyId}#${windowSeconds}s#${windowStartEpochSeconds}`,
  }),

  eventSequence: (organizationId: string) => ({ pk: `ORG#${organizationId}#SEQ`, sk: 'COUNTER' }),
  eventsOf: (organizationId: string) => `ORG#${organizationId}#EVT`,
  /** The event batch whose LAST event is `sequence` (a legacy single event: that event); lib/platform/dynamo/event-batches.ts. */
  event: (organizationId: string, sequence: number) => ({ pk: `ORG#${organizationId}#EVT`, sk: `SEQ#${padSequence(sequence)}` }),
  eventSortKey: (sequence: number) => `SEQ#${padSequence(sequence)}`,

  /** Where a periodic sweep of something that is no tenant's (e.g. the attachment bodies) stopped. */
  sweepPosition: (sweep: string) => ({ pk: `SWEEP#${sweep}`, sk: 'POSITION' }),
  /** The organization's attempts in flight and its endpoints' circuits (lib/webhooks/domain/fair-share.ts). */
  webhookGate: (organizationId: string) => ({ pk: `ORG#${organizationId}#WHGATE`, sk: 'GATE' }),

  auditOf: (organizationId: string) => `ORG#${organizationId}#AUD`,
  auditOfKind: (organizationId: string, kind: string) => `ORG#${organizationId}#AUDKIND#${kind}`,
  /** Sorts by time, then id: a newest-first query is a reverse range scan. */
  auditSortKey: (occurredAt: string, auditId: string) => `AUD#${occurredAt}#${auditId}`,
};

/**
 * The organizations waiting for the webhook delivery worker (lib/webhooks/domain/fair-share.ts):
 * one item for every organization, apart from `keys` so that only the delivery worker bundles it.
 */
export const webhookGateWaitingKey = { pk: 'WHGATE#WAITING', sk: 'WAITING' } as const;
