/**
 * Every DynamoDB key of the service, derived in this one module
 * (docs/architecture.md "Storage: the entity layer"). Organization ids are part of every tenant
 * key, so no query can cross tenants.
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

const inventoryListOf = (organizationId: string, recordType: string) => `ORG#${organizationId}#LIST#${recordType}`;
/** `AT#<occurredAt>#<movementId>`: a movement's sort key in its list (lib/inventory/store/inventory-lists.ts `listSortKeys`). */
const movementSortKey = (occurredAt: string, movementId: string) => `AT#${occurredAt}#${movementId}`;

/** Sort-key prefixes of a lot's partition in the lot-trace index: the builds that consumed it, and that produced it. */
export const LOT_CONSUMED_BY = 'USED';
export const LOT_PRODUCED_BY = 'MADE';
export type LotBuildsPrefix = typeof LOT_CONSUMED_BY | typeof LOT_PRODUCED_BY;

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

  /** An inventory record (item, location, stock record, movement) by its id; ids carry their type prefix. */
  inventoryRecord: (organizationId: string, id: string) => ({ pk: `ORG#${organizationId}#${id}`, sk: 'RECORD' }),
  /** The claim of a natural key (sku, location code, item × location × lot): names the record's id. */
  naturalKey: (organizationId: string, recordType: string, naturalKey: string) => ({ pk: `ORG#${organizationId}#NK#${recordType}#${naturalKey}`, sk: 'KEY' }),
  /** The organization's list of one inventory record type: entries sorted by what its filters read (lib/inventory/store/inventory-lists.ts). */
  inventoryListOf,
  /**
   * A movement: one item in the organization's movement list, by time then id
   * (docs/inventory.md "Reading inventory"); its id carries its time, so the id gives the key.
   */
  movement: (organizationId: string, occurredAt: string, movementId: string) => ({
    pk: inventoryListOf(organizationId, 'movement'),
    sk: movementSortKey(occurredAt, movementId),
  }),
  movementSortKey,
  /** Where older code stored a movement as a whole (its legs were `LEG#<stock record>` beside it): still read by id. */
  legacyMovementRecord: (organizationId: string, movementId: string) => ({ pk: `ORG#${organizationId}#${movementId}`, sk: 'RECORD' }),
  /** A stock record's movements, oldest first (gsi1 for a movement's first leg, gsi2 for a transfer's second). */
  ledgerOf: (organizationId: string, stockRecordId: string) => `ORG#${organizationId}#LEDGER#${stockRecordId}`,
  ledgerSortKey: (occurredAt: string, movementId: string) => `MOV#${occurredAt}#${movementId}`,
  /** The claim of an applied stock row; its key is `<kind>#<natural key>` as JSON, never split. */
  stockEntry: (organizationId: string, key: string) => ({ pk: `ORG#${organizationId}#ENTRY#${key}`, sk: 'ENTRY' }),
  /**
   * The lots of one item at one location that may hold stock (lib/inventory/store/stocked-lots.ts): one
   * partition per place, an entry per lot (`LOT#<lot>`) and the mark that the place is indexed.
   */
  stockedLotsOf: (organizationId: string, itemId: string, locationId: string) => `ORG#${organizationId}#STOCKED#${itemId}#${locationId}`,
  stockedLotSortKey: (lot: string) => `LOT#${lot}`,
  stockedPlaceMarkSortKey: 'INDEXED',
  itemStock: (organizationId: string, itemId: string) => ({ pk: `ORG#${organizationId}#${itemId}`, sk: 'ONHAND' }),
  stockDocument: (organizationId: string, key: string) => ({ pk: `ORG#${organizationId}#DOC#${key}`, sk: 'DOC' }),

  importJob: (organizationId: string, jobId: string) => ({ pk: `ORG#${organizationId}#IMPJOB#${jobId}`, sk: 'JOB' }),
  /** Row errors sort by row, then by their order within the row. */
  importRowError: (organizationId: string, jobId: string, rowNumber: number, index: number) => ({
    pk: `ORG#${organizationId}#IMPJOB#${jobId}`,
    sk: `ERR#${String(rowNumber).padStart(9, '0')}#${String(index).padStart(3, '0')}`,
  }),
  importRowErrorsOf: (organizationId: string, jobId: string) => `ORG#${organizationId}#IMPJOB#${jobId}`,
  /** Sparse index of jobs committed but not yet handed to the queue (for the sweeper). */
  pendingDispatch: 'IMPJOB#DISPATCH',
  /**
   * One shard of the sparse, keys-only index of jobs handed to the queue and not finished (the
   * sweeper fails those abandoned longer than the queue keeps a message).
   */
  activeJobsShard: (shard: number) => `IMPJOB#ACTIVE#${String(shard).padStart(2, '0')}`,
  /** Where gsi1 listed active jobs before the sharded index; the sweeper still reads it until it is empty. */
  legacyActiveJobs: 'IMPJOB#ACTIVE',

  /** An export job (docs/exports.md). */
  exportJob: (organizationId: string, jobId: string) => ({ pk: `ORG#${organizationId}#EXPJOB#${jobId}`, sk: 'JOB' }),
  /** The organization's running exports, one slot each (docs/exports.md "Fairness"). */
  exportSlots: (organizationId: string) => ({ pk: `ORG#${organizationId}#EXPSLOTS`, sk: 'SLOTS' }),
  /** Sparse index of export jobs committed but not yet handed to their queue (the sweeper's). */
  pendingExportDispatch: 'EXPJOB#DISPATCH',
  /** One shard of the active-jobs index's export jobs, as `activeJobsShard` for imports. */
  activeExportsShard: (shard: number) => `EXPJOB#ACTIVE#${String(shard).padStart(2, '0')}`,
  /** Where gsi1 listed active export jobs before the sharded index; the sweeper still reads it until it is empty. */
  legacyActiveExports: 'EXPJOB#ACTIVE',

  /** A BOM (detail) by id; its list entry lives in the organization's BOM list, ordered by id (= creation). */
  bom: (organizationId: string, bomId: string) => ({ pk: `ORG#${organizationId}#${bomId}`, sk: 'BOM' }),
  bomsOf: (organizationId: string) => `ORG#${organizationId}#BOMS`,
  bomListEntry: (organizationId: string, bomId: string) => ({ pk: `ORG#${organizationId}#BOMS`, sk: `BOM#${bomId}` }),
  /** A BOM's revisions: a small listing entry by number, the full snapshot by id. */
  bomRevisionsOf: (organizationId: string, bomId: string) => `ORG#${organizationId}#${bomId}#REV`,
  bomRevisionByNumber: (organizationId: string, bomId: string, number: number) => ({
    pk: `ORG#${organizationId}#${bomId}#REV`,
    sk: `N#${String(number).padStart(10, '0')}`,
  }),
  bomRevisionById: (organizationId: string, bomId: string, revisionId: string) => ({ pk: `ORG#${organizationId}#${bomId}#REV`, sk: `ID#${revisionId}` }),
  /** The builds of a BOM that consumed one stock record (forward traceability), by build id. */
  buildsOfSource: (organizationId: string, bomId: string, stockRecordId: string) => `ORG#${organizationId}#${bomId}#SRC#${stockRecordId}`,
  buildOfSource: (organizationId: string, bomId: string, stockRecordId: string, buildId: string) => ({
    pk: `ORG#${organizationId}#${bomId}#SRC#${stockRecordId}`,
    sk: `BLD#${buildId}`,
  }),

  /** A revision or a build by its id alone (what an attachment's target names), pointing at its BOM. */
  recordPointer: (organizationId: string, id: string) => ({ pk: `ORG#${organizationId}#${id}`, sk: 'POINTER' }),

  /** Where a periodic sweep of something that is no tenant's (e.g. the attachment bodies) stopped. */
  sweepPosition: (sweep: string) => ({ pk: `SWEEP#${sweep}`, sk: 'POSITION' }),

  /** An attachment by id, and its entries in the organization's list and in its target's list. */
  attachment: (organizationId: string, attachmentId: string) => ({ pk: `ORG#${organizationId}#${attachmentId}`, sk: 'ATT' }),
  attachmentsOf: (organizationId: string) => `ORG#${organizationId}#ATTS`,
  attachmentsOfTarget: (organizationId: string, targetKind: string, targetId: string) => `ORG#${organizationId}#ATTS#${targetKind}#${targetId}`,
  attachmentSortKey: (attachmentId: string) => `ATT#${attachmentId}`,

  /** The organization's webhook endpoints (docs/webhooks.md), by id, and their counter in the same partition. */
  webhookEndpointsOf: (organizationId: string) => `ORG#${organizationId}#WEBHOOKS`,
  webhookEndpoint: (organizationId: string, endpointId: string) => ({ pk: `ORG#${organizationId}#WEBHOOKS`, sk: `WHE#${endpointId}` }),
  webhookEndpointCount: (organizationId: string) => ({ pk: `ORG#${organizationId}#WEBHOOKS`, sk: 'COUNT' }),
  /** One delivery task per (endpoint, event, origin): `live` for the dispatcher's, a replay id for a replay's. */
  webhookTask: (organizationId: string, endpointId: string, sequence: number, origin: string) => ({
    pk: `ORG#${organizationId}#WHTASK#${endpointId}`,
    sk: `SEQ#${padSequence(sequence)}#${origin}`,
  }),
  /** An endpoint's delivery log, one entry per attempt; attempt ids are ULIDs, so a reverse scan is newest first. */
  webhookAttemptsOf: (organizationId: string, endpointId: string) => `ORG#${organizationId}#WHLOG#${endpointId}`,
  webhookAttempt: (organizationId: string, endpointId: string, attemptId: string) => ({
    pk: `ORG#${organizationId}#WHLOG#${endpointId}`,
    sk: `ATT#${attemptId}`,
  }),
  webhookReplay: (organizationId: string, replayId: string) => ({ pk: `ORG#${organizationId}#${replayId}`, sk: 'REPLAY' }),
  /**
   * One shard of gsi1's index of pending delivery tasks by the time their message counts as lost
   * (docs/webhooks.md "The due-task sweep"); a task's shard comes from its endpoint and sequence.
   */
  webhookDueTasksShard: (shard: number) => `WHTASK#DUE#${String(shard).padStart(2, '0')}`,
  /** One shard of gsi1's index of running replays by the time their page message counts as lost. */
  webhookRunningReplaysShard: (shard: number) => `WHREPLAY#RUNNING#${String(shard).padStart(2, '0')}`,
  /** gsi2's partition of an organization's replay tasks not finished yet: what the replay cap counts. */
  webhookReplayTasksInFlightOf: (organizationId: string) => `ORG#${organizationId}#WHREPLAYTASKS`,
  /** The endpoint's one running replay (docs/webhooks.md "Replaying"), beside the endpoints. */
  webhookActiveReplay: (organizationId: string, endpointId: string) => ({ pk: `ORG#${organizationId}#WEBHOOKS`, sk: `REPLAYING#${endpointId}` }),
  /** The organization's attempts in flight and its endpoints' circuits (lib/webhooks/domain/fair-share.ts). */
  webhookGate: (organizationId: string) => ({ pk: `ORG#${organizationId}#WHGATE`, sk: 'GATE' }),

  auditOf: (organizationId: string) => `ORG#${organizationId}#AUD`,
  auditOfKind: (organizationId: string, kind: string) => `ORG#${organizationId}#AUDKIND#${kind}`,
  /** Sorts by time, then id: a newest-first query is a reverse range scan. */
  auditSortKey: (occurredAt: string, auditId: string) => `AUD#${occurredAt}#${auditId}`,
};

/**
 * The keys of the lot-trace index (lib/platform/storage/tables.ts `LOTS_INDEX`), apart from `keys` so that
 * only the functions that trace lots or record builds bundle them (docs/performance.md "Bundles").
 */
export const lotKeys = {
  /**
   * An item's lot in the lot-trace index (lib/platform/storage/tables.ts `LOTS_INDEX`); ids never contain
   * '#' and the lot is free text, so it goes last.
   */
  lotBuildsOf: (organizationId: string, itemId: string, lot: string) => `ORG#${organizationId}#LOT#${itemId}#${lot}`,
  /** A build that consumed the lot, one entry per stock record of it drawn: by time, then build. */
  lotConsumedBySortKey: (builtAt: string, buildId: string, stockRecordId: string) => `${LOT_CONSUMED_BY}#${builtAt}#${buildId}#${stockRecordId}`,
  /** The build that produced the lot: by time, then build. */
  lotProducedBySortKey: (builtAt: string, buildId: string) => `${LOT_PRODUCED_BY}#${builtAt}#${buildId}`,
  /**
   * Just after every entry of a build in a lot's partition, below the next build's (`$` sorts
   * after `#`): where a read of the builds after it starts.
   */
  lotPositionAfterBuild: (prefix: LotBuildsPrefix, builtAt: string, buildId: string) => `${prefix}#${builtAt}#${buildId}$`,
};

/**
 * The organizations waiting for the webhook delivery worker (lib/webhooks/domain/fair-share.ts):
 * one item for every organization, apart from `keys` so that only the delivery worker bundles it.
 */
export const webhookGateWaitingKey = { pk: 'WHGATE#WAITING', sk: 'WAITING' } as const;
