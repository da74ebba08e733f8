// One piece: every stored kind's declaration until each area declares its own (docs/architecture.md); keys and type tags must stay unique across them.
import { defineEntity } from './entity.ts';
import { activeJobIndexKeys } from './active-jobs-index.ts';
import { keys, lotKeys, webhookGateWaitingKey } from './keys.ts';

/**
 * Every entity the stores write, declared once: type tag, schema version, key and index keys
 * (see lib/platform/dynamo/entity.ts). Key strings themselves are derived in keys.ts. Each is marked pure,
 * so a function bundles only the entities its stores use (docs/performance.md "Bundles").
 */

export const inventoryRecordEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; id: string }>({
  type: 'inventory-record',
  schemaVersion: 2,
  key: ({ organizationId, id }) => keys.inventoryRecord(organizationId, id),
});

export const naturalKeyClaimEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; naturalKey: string }>({
  type: 'natural-key',
  schemaVersion: 1,
  key: ({ organizationId, recordType, naturalKey }) => keys.naturalKey(organizationId, recordType, naturalKey),
});

/**
 * A movement (docs/inventory.md "The stock model"): ONE item in the organization's movement list,
 * which is its primary key, holding the whole movement (`record`), the list's filter attributes
 * and its legs. The ledger reads it through index keys on the same item: gsi1 for the first (or
 * only) leg's stock record, gsi2 for a transfer's second. Schema 2 was one item per leg (still
 * read through gsi1: lib/inventory/store/movements-store.ts).
 */
export const movementEntity = /* @__PURE__ */ defineEntity<
  { organizationId: string; id: string; occurredAt: string; stockRecordIds: readonly string[] },
  { organizationId: string; id: string; occurredAt: string }
>({
  type: 'movement',
  schemaVersion: 3,
  key: ({ organizationId, id, occurredAt }) => keys.movement(organizationId, occurredAt, id),
  indexKeys: ({ organizationId, id, occurredAt, stockRecordIds: [first, second] }) => ({
    ...(first === undefined ? {} : { gsi1pk: keys.ledgerOf(organizationId, first), gsi1sk: keys.ledgerSortKey(occurredAt, id) }),
    ...(second === undefined ? {} : { gsi2pk: keys.ledgerOf(organizationId, second), gsi2sk: keys.ledgerSortKey(occurredAt, id) }),
  }),
});

/**
 * An inventory record's entry in its type's list, in the base table so every list read is
 * strongly consistent; the sort key is what the list's filters read (lib/inventory/store/inventory-lists.ts).
 */
export const inventoryListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; sortKey: string }>({
  type: 'inventory-list-entry',
  schemaVersion: 1,
  key: ({ organizationId, recordType, sortKey }) => ({ pk: keys.inventoryListOf(organizationId, recordType), sk: sortKey }),
});

/**
 * A stock record's list entry, keys only: its sort key, the record's id and lot (what never
 * changes and a filter reads); the record itself is read by id (docs/inventory.md "Reading
 * inventory"). Version 1 entries held a full copy of the record, which readers no longer use.
 */
export const stockRecordListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; recordType: string; sortKey: string }>({
  type: 'inventory-list-entry',
  schemaVersion: 2,
  key: ({ organizationId, recordType, sortKey }) => ({ pk: keys.inventoryListOf(organizationId, recordType), sk: sortKey }),
});

/**
 * A lot of an item at a location that may hold stock: put in the same transaction as the write
 * that takes its stock record from 0 to more, removed by a reader that finds the record at 0
 * (lib/inventory/store/stocked-lots.ts). Holds the record's id.
 */
export const stockedLotEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; itemId: string; locationId: string; lot: string }>({
  type: 'stocked-lot',
  schemaVersion: 1,
  key: ({ organizationId, itemId, locationId, lot }) => ({ pk: keys.stockedLotsOf(organizationId, itemId, locationId), sk: keys.stockedLotSortKey(lot) }),
});

/** The mark that a place's stocked lots are all indexed: written by the first read of the place (lib/inventory/store/stocked-lots.ts). */
export const stockedPlaceMarkEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; itemId: string; locationId: string }>({
  type: 'stocked-place-mark',
  schemaVersion: 1,
  key: ({ organizationId, itemId, locationId }) => ({ pk: keys.stockedLotsOf(organizationId, itemId, locationId), sk: keys.stockedPlaceMarkSortKey }),
});

/**
 * A movement as a whole as older code stored it, under its id (its list entry and legs were
 * items of their own). Never written now; `GET /v1/movements/{id}` falls back to it.
 */
export const legacyMovementRecordEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; id: string }>({
  type: 'movement-record',
  schemaVersion: 1,
  key: ({ organizationId, id }) => keys.legacyMovementRecord(organizationId, id),
});

/** Sort-key prefix of a stock record's movements in gsi1 and gsi2. */
export const LEDGER_PREFIX = 'MOV';

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

/**
 * An import job. Its index keys follow its life (see import-jobs-store.ts): in gsi1's dispatch
 * partition until the queue has it, then in the active-jobs index until it finishes, then in neither.
 */
export const importJobEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; jobId: string }>({
  type: 'import-job',
  schemaVersion: 1,
  key: ({ organizationId, jobId }) => keys.importJob(organizationId, jobId),
});

export const importJobIndexKeys = {
  pendingDispatch: (job: { organizationId: string; id: string; submittedAt: string }) => ({
    gsi1pk: keys.pendingDispatch,
    gsi1sk: `${job.submittedAt}#${job.organizationId}#${job.id}`,
  }),
  /** Its entry in the sharded, keys-only active-jobs index (lib/platform/dynamo/active-jobs-index.ts). */
  active: (organizationId: string, jobId: string) => activeJobIndexKeys(keys.activeJobsShard, organizationId, jobId),
};

export const importRowErrorEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; jobId: string; rowNumber: number; index: number }>({
  type: 'import-row-error',
  schemaVersion: 1,
  key: ({ organizationId, jobId, rowNumber, index }) => keys.importRowError(organizationId, jobId, rowNumber, index),
});

/** Sort-key prefix of a job's row errors. */
export const ROW_ERROR_PREFIX = 'ERR';

/** An export job; its index keys follow its life as an import job's do (export-jobs-store.ts). */
export const exportJobEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; jobId: string }>({
  type: 'export-job',
  schemaVersion: 1,
  key: ({ organizationId, jobId }) => keys.exportJob(organizationId, jobId),
});

export const exportJobIndexKeys = {
  pendingDispatch: (job: { organizationId: string; id: string; submittedAt: string }) => ({
    gsi1pk: keys.pendingExportDispatch,
    gsi1sk: `${job.submittedAt}#${job.organizationId}#${job.id}`,
  }),
  /** Its entry in the active-jobs index, in the export flow's own shards (lib/platform/dynamo/active-jobs-index.ts). */
  active: (organizationId: string, jobId: string) => activeJobIndexKeys(keys.activeExportsShard, organizationId, jobId),
};

export const bomEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string }>({
  type: 'bom',
  schemaVersion: 1,
  key: ({ organizationId, bomId }) => keys.bom(organizationId, bomId),
});

/** A BOM's entry in its organization's list: the summary and the attributes lists filter on. */
export const bomListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string }>({
  type: 'bom-list-entry',
  // 2: `searchCode` and `searchName` apart, so `q` never matches across them (1: one `searchText`).
  schemaVersion: 2,
  key: ({ organizationId, bomId }) => keys.bomListEntry(organizationId, bomId),
});

export const bomRevisionListingEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string; number: number }>({
  type: 'bom-revision-listing',
  schemaVersion: 1,
  key: ({ organizationId, bomId, number }) => keys.bomRevisionByNumber(organizationId, bomId, number),
});

export const bomRevisionEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; bomId: string; revisionId: string }>({
  type: 'bom-revision',
  schemaVersion: 1,
  key: ({ organizationId, bomId, revisionId }) => keys.bomRevisionById(organizationId, bomId, revisionId),
});

/** Where a build stands in the lot-trace index: the item and lot it consumed or produced, and when it was built. */
export interface BuildLot {
  itemId: string;
  /** No lot: the item is not tracked by lot, and the build is not in the index under it. */
  lot: string | null;
  builtAt: string;
}

/**
 * A build's provenance entry under one stock record it drew from; it also lists the build under
 * the lot it consumed in the lot-trace index (docs/inventory.md "Tracing a lot"). 2: the build's
 * header and this record's own consumed lines (lib/boms/store/build-provenance-items.ts). 1: the whole
 * provenance (`build`), still read.
 */
export const buildProvenanceEntity = /* @__PURE__ */ defineEntity<
  { organizationId: string; bomId: string; stockRecordId: string; buildId: string; consumed: BuildLot },
  { organizationId: string; bomId: string; stockRecordId: string; buildId: string }
>({
  type: 'build-provenance',
  schemaVersion: 2,
  key: ({ organizationId, bomId, stockRecordId, buildId }) => keys.buildOfSource(organizationId, bomId, stockRecordId, buildId),
  indexKeys: ({ organizationId, stockRecordId, buildId, consumed }): Record<string, string> =>
    consumed.lot === null
      ? {}
      : {
          lotPk: lotKeys.lotBuildsOf(organizationId, consumed.itemId, consumed.lot),
          lotSk: lotKeys.lotConsumedBySortKey(consumed.builtAt, buildId, stockRecordId),
        },
});

/** Sort-key prefixes: BOM list entries, revision listings by number, builds of a source. */
export const BOM_LIST_PREFIX = 'BOM';
export const REVISION_NUMBER_PREFIX = 'N';
export const BUILD_PREFIX = 'BLD';

/** A revision's or a build's id → its BOM: lets an attachment name either by id alone. */
export const recordPointerEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; id: string }>({
  type: 'record-pointer',
  schemaVersion: 1,
  key: ({ organizationId, id }) => keys.recordPointer(organizationId, id),
});

/**
 * A build's pointer: the same stored entity as `recordPointerEntity`, which also lists the build
 * under the lot it produced in the lot-trace index (docs/inventory.md "Tracing a lot"). 2: the
 * build's header, and its consumed lines themselves or how many slices hold them
 * (lib/boms/store/build-provenance-items.ts). 1: the whole provenance (`build`), still read.
 */
export const buildPointerEntity = /* @__PURE__ */ defineEntity<
  { organizationId: string; id: string; produced: BuildLot },
  { organizationId: string; id: string }
>({
  type: 'record-pointer',
  schemaVersion: 2,
  key: ({ organizationId, id }) => keys.recordPointer(organizationId, id),
  indexKeys: ({ organizationId, id, produced }): Record<string, string> =>
    produced.lot === null
      ? {}
      : { lotPk: lotKeys.lotBuildsOf(organizationId, produced.itemId, produced.lot), lotSk: lotKeys.lotProducedBySortKey(produced.builtAt, id) },
});

/**
 * One slice of the lines a large build consumed, in order, numbered from 0 in its pointer's
 * partition: their keys follow from the build id and how many there are. Not in any index. Its
 * key is here, not in keys.ts (which every function bundles): only provenance reads and writes use it.
 */
export const buildConsumedSliceEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; buildId: string; index: number }>({
  type: 'build-consumed-slice',
  schemaVersion: 1,
  key: ({ organizationId, buildId, index }) => ({ pk: keys.recordPointer(organizationId, buildId).pk, sk: `CONSUMED#${String(index).padStart(5, '0')}` }),
});

export const attachmentEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; attachmentId: string }>({
  type: 'attachment',
  schemaVersion: 1,
  key: ({ organizationId, attachmentId }) => keys.attachment(organizationId, attachmentId),
});

/** An attachment's entry in a list: the organization's (target undefined) or its target's. */
export const attachmentListEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; attachmentId: string; target?: { kind: string; id: string } }>({
  type: 'attachment-list-entry',
  schemaVersion: 1,
  key: ({ organizationId, attachmentId, target }) => ({
    pk: target ? keys.attachmentsOfTarget(organizationId, target.kind, target.id) : keys.attachmentsOf(organizationId),
    sk: keys.attachmentSortKey(attachmentId),
  }),
});

export const ATTACHMENT_LIST_PREFIX = 'ATT';

/** The claim of one applied stock row (or build), by its kind's natural key. */
export const stockEntryEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; key: string }>({
  type: 'stock-entry',
  schemaVersion: 1,
  key: ({ organizationId, key }) => keys.stockEntry(organizationId, key),
});

/** An item's on-hand across all its stock records (what low-stock is decided on). */
export const itemStockEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; itemId: string }>({
  type: 'item-stock',
  schemaVersion: 1,
  key: ({ organizationId, itemId }) => keys.itemStock(organizationId, itemId),
});

/** A receipt or count an import recorded, by its natural key (job, type, reference). */
export const stockDocumentEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; key: string }>({
  type: 'stock-document',
  schemaVersion: 1,
  key: ({ organizationId, key }) => keys.stockDocument(organizationId, key),
});

export const stockChangeEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; id: string }>({
  type: 'stock-change',
  schemaVersion: 1,
  // Its key is here, not in keys.ts (which every function bundles): only the stock functions read or write changes.
  key: ({ organizationId, id }) => ({ pk: `ORG#${organizationId}#${id}`, sk: 'CHANGE' }),
});

export const sweepPositionEntity = /* @__PURE__ */ defineEntity<{ sweep: string }>({
  type: 'sweep-position',
  schemaVersion: 1,
  key: ({ sweep }) => keys.sweepPosition(sweep),
});

/** A webhook endpoint (docs/webhooks.md "Registering"); its secrets only sealed (lib/webhooks/store/webhook-secrets.ts). */
export const webhookEndpointEntity = defineEntity<{ organizationId: string; endpointId: string }>({
  type: 'webhook-endpoint',
  schemaVersion: 1,
  key: ({ organizationId, endpointId }) => keys.webhookEndpoint(organizationId, endpointId),
});

export const WEBHOOK_ENDPOINT_PREFIX = 'WHE';

/** How many endpoints the organization has: the create's conditional increment keeps the limit under races. */
export const webhookEndpointCountEntity = defineEntity<{ organizationId: string }>({
  type: 'webhook-endpoint-count',
  schemaVersion: 1,
  key: ({ organizationId }) => keys.webhookEndpointCount(organizationId),
});

/** One event to send to one endpoint, created once: by its first claim, or a replay's conditional put (docs/webhooks.md "Delivery"). */
export const webhookTaskEntity = defineEntity<{ organizationId: string; endpointId: string; sequence: number; origin: string }>({
  type: 'webhook-task',
  schemaVersion: 1,
  key: ({ organizationId, endpointId, sequence, origin }) => keys.webhookTask(organizationId, endpointId, sequence, origin),
});

/** One attempt in an endpoint's delivery log (30 days). */
export const webhookAttemptEntity = defineEntity<{ organizationId: string; endpointId: string; attemptId: string }>({
  type: 'webhook-attempt',
  schemaVersion: 1,
  key: ({ organizationId, endpointId, attemptId }) => keys.webhookAttempt(organizationId, endpointId, attemptId),
});

export const WEBHOOK_ATTEMPT_PREFIX = 'ATT';

/** A replay asked for, and how far its worker has paged the feed. */
export const webhookReplayEntity = defineEntity<{ organizationId: string; replayId: string }>({
  type: 'webhook-replay',
  schemaVersion: 1,
  key: ({ organizationId, replayId }) => keys.webhookReplay(organizationId, replayId),
});

/** The lock of an endpoint's one running replay: put with its replay, deleted when that replay ends. */
export const webhookActiveReplayEntity = defineEntity<{ organizationId: string; endpointId: string }>({
  type: 'webhook-active-replay',
  schemaVersion: 1,
  key: ({ organizationId, endpointId }) => keys.webhookActiveReplay(organizationId, endpointId),
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
