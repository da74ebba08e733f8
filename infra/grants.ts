// One piece: every function's IAM grants derive from one route and worker table, so each grant sits beside the others it must agree with.
import { ATTACHMENT_OBJECT_PREFIX, EXPORT_OBJECT_PREFIX } from '../lib/platform/storage/objects.ts';
import type { RouteId } from '../lib/app/routes.ts';
import type { ResourceAccess, RouteDefinition, TableAccess } from '../lib/platform/contracts/route-types.ts';
import { QUEUES, TABLES } from '../lib/platform/storage/tables.ts';
import type { QueueId, TableId } from '../lib/platform/storage/tables.ts';

/**
 * THE map of what each function's role may do (docs/operations.md#grants): one entry per route
 * (by operationId), per worker (by id), for the `$default` fallback and for the API reference,
 * listing the exact API calls its code makes on each resource, and nothing else. `ApiFunction` turns an entry into IAM
 * statements and the environment variables that name the resources; the stack refuses to synth
 * a function without an entry, or whose entry names other resources than its `access` in
 * lib/<area>/routes.ts / lib/app/workers.ts (which the local runtime and tests read).
 *
 * Calls inside `TransactWriteItems` are authorized per item: Put → PutItem, Update → UpdateItem,
 * Delete → DeleteItem, ConditionCheck → ConditionCheckItem; there is no action of its own.
 * Nothing calls Scan or DescribeTable; BatchWriteItem and the PartiQL writes only the webhook
 * delivery path (its unconditional puts and batched conditional writes).
 *
 * Local runs and tests do not enforce IAM: a change that makes a function call something new
 * must add the call to its entry here, or the call is denied on AWS.
 */

/** DynamoDB calls, as the API names them (the IAM action is `dynamodb:<call>`). */
/** `PartiQLInsert`, `PartiQLUpdate`, `BatchWriteItem`: single-item writes sent many to a request (lib/platform/dynamo/batch-statements.ts, lib/platform/dynamo/batch-write-puts.ts). */
export type TableCall =
  'GetItem' | 'BatchGetItem' | 'Query' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem' | 'PartiQLInsert' | 'PartiQLUpdate' | 'BatchWriteItem';

export interface TableGrant {
  /** Calls on the table's items (Query: on the table itself). Empty: the code only needs the name. */
  calls: readonly TableCall[];
  /** Global secondary indexes the function queries (`<table>/index/<name>`, nothing wider). */
  queryIndexes?: readonly string[];
}

/** Areas of the files bucket; each is one key prefix, and object grants never reach beyond it. */
export type ObjectArea = 'import-files' | 'attachments' | 'exports';

/**
 * Import files are `imports/<organization>/<sha256>.csv` (lib/imports/domain/submit-job.ts; a test
 * checks the key it builds); attachment bodies live under `ATTACHMENT_OBJECT_PREFIX`.
 */
export const IMPORT_FILE_PREFIX = 'imports/';

export const OBJECT_AREA_PREFIXES: Readonly<Record<ObjectArea, string>> = {
  'import-files': IMPORT_FILE_PREFIX,
  attachments: ATTACHMENT_OBJECT_PREFIX,
  exports: EXPORT_OBJECT_PREFIX,
};

/** PutObject also authorizes the multipart calls that write (create, upload part, complete). */
export type ObjectCall = 'GetObject' | 'PutObject' | 'DeleteObject' | 'AbortMultipartUpload';

/** `consume` is the event source mapping's: receive, delete, read the queue's attributes. */
export type ImportQueueUse = 'send' | 'consume';
/** A queue of QUEUES: `consume` is granted by the event source mapping of its worker (`ApiFunction.consumeQueue`). */
export type QueueUse = 'send' | 'consume';
export type DeadLetterCall = 'ReceiveMessage' | 'DeleteMessage' | 'ChangeMessageVisibility';

export interface FunctionGrant {
  tables: Partial<Record<TableId, TableGrant>>;
  /** Object calls per area, on `<bucket>/<prefix>*` only. */
  objects?: Partial<Record<ObjectArea, readonly ObjectCall[]>>;
  /** `s3:ListBucket`, only for keys under these areas' prefixes. */
  listObjects?: readonly ObjectArea[];
  importQueue?: readonly ImportQueueUse[];
  importDeadLetterQueue?: readonly DeadLetterCall[];
  /** Uses of the other queues of QUEUES (lib/platform/storage/tables.ts), by id. */
  queues?: Partial<Record<QueueId, readonly QueueUse[]>>;
  /** Calls on the other queues' dead-letter queues, by queue id. */
  deadLetterQueues?: Partial<Record<QueueId, readonly DeadLetterCall[]>>;
  /** The function signs list cursors: `secretsmanager:GetSecretValue` on the cursor secret alone. */
  cursorSecret?: boolean;
  /** KMS calls on the webhook secrets key: GenerateDataKey to seal (create, rotate), Decrypt to open (delivery; a replayed create or rotate response). */
  webhookSecrets?: readonly WebhookSecretsCall[];
}

export type WebhookSecretsCall = 'GenerateDataKey' | 'Decrypt';

const calls = (...list: TableCall[]): TableGrant => ({ calls: list });

/**
 * The table name only: the shared writer is built with the events table at cold start, but a
 * command without domain events never reads the sequence or appends to it.
 */
const NAME_ONLY: TableGrant = { calls: [] };

/** Every route: authentication reads the key by hash; the rate limiter counts in one UpdateItem. */
const CHAIN: FunctionGrant = { tables: { keys: calls('GetItem'), 'rate-limits': calls('UpdateItem') } };

/**
 * Every write route besides: the Idempotency-Key claim (PutItem), its read (GetItem), completion
 * (UpdateItem, alone or in the commit) and release (DeleteItem); the audit entry (PutItem in the
 * commit). No route's command emits domain events, so the events table is named, not granted.
 */
const WRITE_CHAIN: FunctionGrant = {
  tables: { idempotency: calls('PutItem', 'GetItem', 'UpdateItem', 'DeleteItem'), audit: calls('PutItem'), events: NAME_ONLY },
};

/** The writer's event append: the sequence counter (GetItem, then UpdateItem) and the events (PutItem). */
const EVENT_APPEND: TableGrant = calls('GetItem', 'UpdateItem', 'PutItem');

/** Union of grants: each call, index, area and queue use once. */
export function mergeGrants(...grants: FunctionGrant[]): FunctionGrant {
  const union = <T>(...lists: (readonly T[] | undefined)[]): T[] => [...new Set(lists.flatMap((list) => list ?? []))];
  const tables: Partial<Record<TableId, TableGrant>> = {};
  const objects: Partial<Record<ObjectArea, ObjectCall[]>> = {};
  for (const grant of grants) {
    for (const [id, table] of Object.entries(grant.tables) as [TableId, TableGrant][]) {
      const merged = tables[id];
      const queryIndexes = union(merged?.queryIndexes, table.queryIndexes);
      tables[id] = { calls: union(merged?.calls, table.calls), ...(queryIndexes.length > 0 ? { queryIndexes } : {}) };
    }
    for (const [area, list] of Object.entries(grant.objects ?? {}) as [ObjectArea, ObjectCall[]][]) objects[area] = union(objects[area], list);
  }
  const queues: Partial<Record<QueueId, QueueUse[]>> = {};
  const deadLetterQueues: Partial<Record<QueueId, DeadLetterCall[]>> = {};
  for (const grant of grants) {
    for (const [id, uses] of Object.entries(grant.queues ?? {}) as [QueueId, QueueUse[]][]) queues[id] = union(queues[id], uses);
    for (const [id, list] of Object.entries(grant.deadLetterQueues ?? {}) as [QueueId, DeadLetterCall[]][])
      deadLetterQueues[id] = union(deadLetterQueues[id], list);
  }
  const listObjects = union(...grants.map((grant) => grant.listObjects));
  const importQueue = union(...grants.map((grant) => grant.importQueue));
  const importDeadLetterQueue = union(...grants.map((grant) => grant.importDeadLetterQueue));
  const webhookSecrets = union(...grants.map((grant) => grant.webhookSecrets));
  return {
    tables,
    ...(Object.keys(objects).length > 0 ? { objects } : {}),
    ...(listObjects.length > 0 ? { listObjects } : {}),
    ...(importQueue.length > 0 ? { importQueue } : {}),
    ...(importDeadLetterQueue.length > 0 ? { importDeadLetterQueue } : {}),
    ...(Object.keys(queues).length > 0 ? { queues } : {}),
    ...(Object.keys(deadLetterQueues).length > 0 ? { deadLetterQueues } : {}),
    ...(grants.some((grant) => grant.cursorSecret) ? { cursorSecret: true } : {}),
    ...(webhookSecrets.length > 0 ? { webhookSecrets } : {}),
  };
}

const readRoute = (own: Partial<FunctionGrant> = {}): FunctionGrant => mergeGrants(CHAIN, { tables: {}, ...own });
const writeRoute = (own: Partial<FunctionGrant> = {}): FunctionGrant => mergeGrants(CHAIN, WRITE_CHAIN, { tables: {}, ...own });

/** Whether an attachment's target exists: records by id (BatchGetItem), a BOM, a pointer or a job (GetItem). */
const ATTACHMENT_TARGET_CHECK = calls('GetItem', 'BatchGetItem');

export const ROUTE_GRANTS = {
  renderBarcode: readRoute(),
  // The committed sequence (GetItem), the events after the cursor (Query), a position's event (GetItem).
  listEvents: readRoute({ tables: { events: calls('GetItem', 'Query') }, cursorSecret: true }),
  // The organization's partition, or gsi1 when filtered by kind.
  listAuditEvents: readRoute({ tables: { audit: { calls: ['Query'], queryIndexes: ['gsi1'] } }, cursorSecret: true }),
  listImportKinds: readRoute({ cursorSecret: true }),
  // Stores the file, commits the job (PutItem), queues it, then marks it dispatched (UpdateItem).
  submitImportJob: writeRoute({
    tables: { inventory: calls('PutItem', 'UpdateItem') },
    objects: { 'import-files': ['PutObject'] },
    importQueue: ['send'],
  }),
  getImportJob: readRoute({ tables: { inventory: calls('GetItem') } }),
  listImportRowErrors: readRoute({ tables: { inventory: calls('GetItem', 'Query') }, cursorSecret: true }),
  listAttachments: readRoute({ tables: { inventory: calls('Query') }, cursorSecret: true }),
  // Target check, the body, then the record and its two list entries (PutItem).
  uploadAttachment: writeRoute({
    tables: { inventory: { calls: [...ATTACHMENT_TARGET_CHECK.calls, 'PutItem'] } },
    objects: { attachments: ['PutObject'] },
  }),
  // Reads the record and signs a GetObject URL with the function's own credentials.
  getAttachmentDownloadUrl: readRoute({ tables: { inventory: calls('GetItem') }, objects: { attachments: ['GetObject'] } }),
  // Reads the record, deletes it and its list entries (DeleteItem), then the body.
  deleteAttachment: writeRoute({ tables: { inventory: calls('GetItem', 'DeleteItem') }, objects: { attachments: ['DeleteObject'] } }),
  createAttachmentLink: writeRoute({ tables: { inventory: { calls: [...ATTACHMENT_TARGET_CHECK.calls, 'PutItem'] } } }),
  listBoms: readRoute({ tables: { inventory: calls('Query') }, cursorSecret: true }),
  // Claim, BOM, list entry, revision, pointer (PutItem) with a check per named item in the commit
  // (ConditionCheckItem); BatchGetItem explains a failed check or checks a long BOM up front.
  createBom: writeRoute({ tables: { inventory: calls('BatchGetItem', 'PutItem', 'ConditionCheckItem') } }),
  getBom: readRoute({ tables: { inventory: calls('GetItem') } }),
  // Reads the BOM (GetItem), then as createBom.
  updateBom: writeRoute({ tables: { inventory: calls('GetItem', 'BatchGetItem', 'PutItem', 'ConditionCheckItem') } }),
  listBomBuilds: readRoute({ tables: { inventory: calls('GetItem', 'Query') }, cursorSecret: true }),
  listBomRevisions: readRoute({ tables: { inventory: calls('GetItem', 'Query') }, cursorSecret: true }),
  compareBomRevisions: readRoute({ tables: { inventory: calls('GetItem') } }),
  getBomRevision: readRoute({ tables: { inventory: calls('GetItem') } }),
  // The page (Query), then the items' totals (BatchGetItem).
  listItems: readRoute({ tables: { inventory: calls('Query', 'BatchGetItem') }, cursorSecret: true }),
  // The item with its total (BatchGetItem).
  getItem: readRoute({ tables: { inventory: calls('BatchGetItem') } }),
  // The item's stock-record entries (Query), then the item, its total and the records (BatchGetItem).
  getItemAvailability: readRoute({ tables: { inventory: calls('Query', 'BatchGetItem') } }),
  // The page (Query); with parentId, the parent first (GetItem).
  listLocations: readRoute({ tables: { inventory: calls('GetItem', 'Query') }, cursorSecret: true }),
  getLocation: readRoute({ tables: { inventory: calls('GetItem') } }),
  // The entries (Query), then their records by id (BatchGetItem): docs/inventory.md "Reading inventory".
  listStockRecords: readRoute({ tables: { inventory: calls('Query', 'BatchGetItem') }, cursorSecret: true }),
  getStockRecord: readRoute({ tables: { inventory: calls('GetItem') } }),
  listMovements: readRoute({ tables: { inventory: calls('Query') }, cursorSecret: true }),
  getMovement: readRoute({ tables: { inventory: calls('GetItem') } }),
  // Catalog writes (docs/inventory.md "Writing the catalog"): the natural key's claim (BatchGetItem), the record and its entry (PutItem).
  createItem: writeRoute({ tables: { inventory: calls('BatchGetItem', 'PutItem') } }),
  // The item with its total (BatchGetItem); the record, its entry and maybe the total (PutItem), a rename's old claims (DeleteItem).
  updateItem: writeRoute({ tables: { inventory: calls('BatchGetItem', 'PutItem', 'DeleteItem') } }),
  // The code's claim and the parent (BatchGetItem); the record and its entry (PutItem), the parent unchanged (ConditionCheckItem).
  createLocation: writeRoute({ tables: { inventory: calls('BatchGetItem', 'PutItem', 'ConditionCheckItem') } }),
  // As createLocation, the children of a renamed location (Query), a rename's old claims (DeleteItem).
  updateLocation: writeRoute({ tables: { inventory: calls('BatchGetItem', 'Query', 'PutItem', 'DeleteItem', 'ConditionCheckItem') } }),
  // The item by sku and, when no build names the lot, its stock records (Query); the builds of each lot (Query of the lots index); the items named (BatchGetItem).
  traceLot: readRoute({ tables: { inventory: { calls: ['Query', 'BatchGetItem'], queryIndexes: ['lots'] } }, cursorSecret: true }),
  // Items, locations, claims, stock records and totals (BatchGetItem), lots of a place (Query); the change in one commit.
  adjustStock: writeRoute({ tables: { inventory: calls('BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem') } }),
  transferStock: writeRoute({ tables: { inventory: calls('BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem') } }),
  countStock: writeRoute({ tables: { inventory: calls('BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem') } }),
  receiveStock: writeRoute({ tables: { inventory: calls('BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem') } }),
  getStockChange: readRoute({ tables: { inventory: calls('GetItem') } }),
  // The reference (GetItem), items, locations, stock records and totals (BatchGetItem), lots of a place (Query); the reservation in one commit.
  // The place's stocked-lots index: entries of lots found at 0 removed, a place stored before it indexed (DeleteItem, PutItem in a transaction; lib/inventory/store/stocked-lots.ts).
  createReservation: writeRoute({
    tables: { inventory: calls('GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem') },
  }),
  listReservations: readRoute({ tables: { inventory: calls('Query', 'GetItem') }, cursorSecret: true }),
  getReservation: readRoute({ tables: { inventory: calls('GetItem') } }),
  // The reservation (GetItem), its items, locations, records and totals (BatchGetItem); one commit.
  releaseReservation: writeRoute({ tables: { inventory: calls('GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem') } }),
  fulfilReservation: writeRoute({ tables: { inventory: calls('GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem') } }),
  listWebhookEndpoints: readRoute({ tables: { inventory: calls('Query') }, cursorSecret: true }),
  // The sequence at creation (events: GetItem); the endpoint (PutItem) and the counter (UpdateItem) in the commit; sealing the secret.
  createWebhookEndpoint: writeRoute({
    tables: { inventory: calls('PutItem', 'UpdateItem'), events: calls('GetItem') },
    webhookSecrets: ['GenerateDataKey', 'Decrypt'],
  }),
  getWebhookEndpoint: readRoute({ tables: { inventory: calls('GetItem') } }),
  replaceWebhookEndpoint: writeRoute({ tables: { inventory: calls('GetItem', 'UpdateItem') } }),
  // Reads it, deletes it and decrements the counter in the commit.
  deleteWebhookEndpoint: writeRoute({ tables: { inventory: calls('GetItem', 'DeleteItem', 'UpdateItem') } }),
  rotateWebhookSecret: writeRoute({ tables: { inventory: calls('GetItem', 'UpdateItem') }, webhookSecrets: ['GenerateDataKey', 'Decrypt'] }),
  listWebhookDeliveries: readRoute({ tables: { inventory: calls('GetItem', 'Query') }, cursorSecret: true }),
  // The endpoint (GetItem), the checkpoint event and the sequence (events: GetItem), the replay and
  // its endpoint's active-replay item (PutItem; a refused one read for the 409); its first page's message.
  replayWebhookEvents: writeRoute({ tables: { inventory: calls('GetItem', 'PutItem'), events: calls('GetItem') }, queues: { webhooks: ['send'] } }),
  // The BOM (GetItem or its code's claim by Query), items, locations, the reference's claim and the
  // target (BatchGetItem); the build and the claim (PutItem) in one commit; then its message.
  submitBuild: writeRoute({ tables: { inventory: calls('GetItem', 'Query', 'BatchGetItem', 'PutItem') }, queues: { builds: ['send'] } }),
  getBuild: readRoute({ tables: { inventory: calls('GetItem') } }),
  // Static: the kinds are the declaration bundled with the function; its cursors are signed.
  listExportKinds: readRoute({ cursorSecret: true }),
  // Commits the job (PutItem), queues it, then marks it dispatched (UpdateItem).
  submitExport: writeRoute({ tables: { inventory: calls('PutItem', 'UpdateItem') }, queues: { exports: ['send'] } }),
  getExport: readRoute({ tables: { inventory: calls('GetItem') } }),
  // Reads the job and signs a GetObject URL for its file with the function's own credentials.
  getExportDownloadUrl: readRoute({ tables: { inventory: calls('GetItem') }, objects: { exports: ['GetObject'] } }),
} satisfies Record<RouteId, FunctionGrant>;

/** Workers of lib/app/workers.ts by id (a test checks that every worker has one, and no more). */
export const WORKER_GRANTS: Readonly<Record<string, FunctionGrant>> = {
  // Job: GetItem, start/checkpoint/finish (UpdateItem). Records: BatchGetItem reads, PutItem
  // writes, ConditionCheckItem for stock records a decision rests on. Events and audit of each
  // chunk in its commit. Reads its file; a dry run writes and reads its overlay objects beside
  // it (docs/imports.md "Dry runs"). Hands the rest of a job on with SendMessage.
  processImportJobs: {
    tables: {
      inventory: calls('GetItem', 'BatchGetItem', 'PutItem', 'UpdateItem', 'ConditionCheckItem'),
      events: EVENT_APPEND,
      audit: calls('PutItem'),
    },
    objects: { 'import-files': ['GetObject', 'PutObject'] },
    importQueue: ['consume', 'send'],
  },
  // Jobs to dispatch through gsi1, active jobs through the keys-only active-jobs index (then the
  // jobs by BatchGetItem); marks them dispatched or failed (UpdateItem,
  // the failure with its audit entry). Dead letters: received, deleted or released.
  sweepImportJobs: {
    tables: {
      inventory: { calls: ['GetItem', 'BatchGetItem', 'UpdateItem'], queryIndexes: ['gsi1', 'active-jobs'] },
      events: NAME_ONLY,
      audit: calls('PutItem'),
    },
    importQueue: ['send'],
    importDeadLetterQueue: ['ReceiveMessage', 'DeleteMessage', 'ChangeMessageVisibility'],
  },
  // The tenant's endpoints (Query), the outbox items (BatchWriteItem); a message per delivery. Reading the stream is the mapping's.
  dispatchWebhookEvents: {
    tables: { inventory: calls('Query', 'BatchWriteItem') },
    queues: { webhooks: ['send'] },
  },
  // Tasks and endpoints (GetItem), the claim (UpdateItem; a first claim creates a live task), the
  // `pending` log entry, the claimant's outcome and a task's end (BatchWriteItem), the task's
  // settle and a successor's outcome (PartiQLUpdate, batched; PutItem of one whose `pending` entry
  // is missing), replay pages' task inserts (PartiQLInsert), the run of failures and disabling
  // (UpdateItem, with its audit PutItem), replay pages (Query on events, PutItem of tasks; the
  // organization's unfinished replay tasks counted on gsi2; a replay's end deletes its endpoint's
  // active-replay item), the organization's fair-share gate and the shared item of organizations
  // waiting (GetItem, UpdateItem, the admissions conditional). Retries, deferrals and pages are
  // new messages; secrets opened with Decrypt.
  deliverWebhooks: {
    tables: {
      inventory: {
        calls: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'PartiQLInsert', 'PartiQLUpdate', 'BatchWriteItem'],
        queryIndexes: ['gsi2'],
      },
      events: calls('GetItem', 'Query'),
      audit: calls('PutItem'),
    },
    queues: { webhooks: ['consume', 'send'] },
    webhookSecrets: ['Decrypt'],
  },
  // Job: GetItem, start/checkpoint/finish (UpdateItem). Sources: list Queries (records, BOMs, row
  // errors, reservations, audit), the items a BOM names and reservations' before-images (BatchGetItem); events: the sequence and the events
  // after it (GetItem, Query) for the snapshot's roll-back, plus the completion's event append.
  // Its file: multipart upload (PutObject), read-back for the digest (GetObject), abort; the
  // import file of an import-row-errors export (GetObject). Hands the rest on with SendMessage, and
  // sends a waiting export again later; its organization's slots: GetItem, UpdateItem
  // (lib/exports/store/export-slots.ts).
  processExportJobs: {
    tables: {
      inventory: calls('GetItem', 'BatchGetItem', 'Query', 'UpdateItem'),
      events: calls('GetItem', 'Query', 'UpdateItem', 'PutItem'),
      audit: { calls: ['Query', 'PutItem'], queryIndexes: ['gsi1'] },
    },
    objects: { exports: ['PutObject', 'GetObject', 'AbortMultipartUpload'], 'import-files': ['GetObject'] },
    queues: { exports: ['consume', 'send'] },
  },
  // As sweepImportJobs for export jobs (its own shards of the active-jobs index, then the jobs by
  // BatchGetItem); a failed export's upload is aborted and its slot given back (UpdateItem in the
  // finishing transaction).
  sweepExportJobs: {
    tables: {
      inventory: { calls: ['GetItem', 'BatchGetItem', 'UpdateItem'], queryIndexes: ['gsi1', 'active-jobs'] },
      events: NAME_ONLY,
      audit: calls('PutItem'),
    },
    objects: { exports: ['AbortMultipartUpload'] },
    queues: { exports: ['send'] },
    deadLetterQueues: { exports: ['ReceiveMessage', 'DeleteMessage', 'ChangeMessageVisibility'] },
  },
  // The due index's shards (Query on gsi1), each lost entry's lease (UpdateItem); its message again;
  // an outbox item's tasks (BatchGetItem) and its delete once nothing is owed (DeleteItem).
  sweepWebhookDeliveries: {
    tables: { inventory: { calls: ['UpdateItem', 'BatchGetItem', 'DeleteItem'], queryIndexes: ['gsi1'] } },
    queues: { webhooks: ['send'] },
  },
  // The expiry index's shards (Query on gsi1); each due reservation (GetItem), its stock (BatchGetItem); one commit.
  sweepReservationExpiries: {
    tables: {
      inventory: { calls: ['GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'ConditionCheckItem'], queryIndexes: ['gsi1'] },
      events: EVENT_APPEND,
      audit: calls('PutItem'),
    },
  },
  // The build (GetItem), its draw slices (Query), its revision, items and locations (GetItem,
  // BatchGetItem), stock records, lots of a place and totals (BatchGetItem, Query); each step one
  // commit: stock (PutItem, UpdateItem), movements, the slice, provenance and the build over its
  // version, with its events and the final audit entry. A build out of time hands itself on. The
  // places' stocked-lots index upkeep (DeleteItem; lib/inventory/store/stocked-lots.ts).
  processBuildJobs: {
    tables: {
      inventory: calls('GetItem', 'BatchGetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem'),
      events: EVENT_APPEND,
      audit: calls('PutItem'),
    },
    queues: { builds: ['consume', 'send'] },
  },
  // The builds' shards of the active-jobs index (Query), then the builds (BatchGetItem); a build
  // whose last step is older than the stall limit gets its message again.
  sweepBuildJobs: {
    tables: { inventory: { calls: ['BatchGetItem'], queryIndexes: ['active-jobs', 'gsi1'] } },
    queues: { builds: ['send'] },
  },
  // Lists attachment bodies, looks their records up (BatchGetItem), deletes the orphans.
  sweepAttachmentObjects: {
    // GetItem/PutItem: the sweep position it continues from (lib/attachments/store/sweep-positions.ts).
    tables: { inventory: calls('BatchGetItem', 'GetItem', 'PutItem') },
    objects: { attachments: ['DeleteObject'] },
    listObjects: ['attachments'],
  },
};

/** The `$default` fallback answers 404 without touching anything. */
export const FALLBACK_GRANT: FunctionGrant = { tables: {} };

/** The API reference (infra/reference-docs.ts) serves files of its own asset: its logs only. */
export const REFERENCE_DOCS_GRANT: FunctionGrant = { tables: {} };

export function routeGrant(route: Pick<RouteDefinition, 'operationId'>, grants: Readonly<Record<string, FunctionGrant>> = ROUTE_GRANTS): FunctionGrant {
  const grant = grants[route.operationId];
  if (!grant) throw new Error(`Route ${route.operationId} has no entry in infra/grants.ts: list the calls its function makes there.`);
  return grant;
}

export function workerGrant(workerId: string, grants: Readonly<Record<string, FunctionGrant>> = WORKER_GRANTS): FunctionGrant {
  const grant = grants[workerId];
  if (!grant) throw new Error(`Worker ${workerId} has no entry in infra/grants.ts: list the calls its function makes there.`);
  return grant;
}

/** Calls a table access level of lib/platform/contracts/route-types.ts allows. */
const LEVEL_CALLS: Record<TableAccess, ReadonlySet<TableCall>> = {
  read: new Set(['GetItem', 'BatchGetItem', 'Query', 'ConditionCheckItem']),
  write: new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'ConditionCheckItem', 'PartiQLInsert', 'PartiQLUpdate', 'BatchWriteItem']),
  'read-write': new Set([
    'GetItem',
    'BatchGetItem',
    'Query',
    'PutItem',
    'UpdateItem',
    'DeleteItem',
    'ConditionCheckItem',
    'PartiQLInsert',
    'PartiQLUpdate',
    'BatchWriteItem',
  ]),
};

/**
 * Throws unless `grant` names exactly the resources `access` declares (so the environment the
 * local runtime and tests give a function is the one it gets on AWS), within each table's level,
 * and consumes the import queue exactly when the function is its event source's target.
 */
export function assertGrantMatchesAccess(id: string, grant: FunctionGrant, access: ResourceAccess, consumesImportQueue = false, consumedQueue?: QueueId): void {
  const problems: string[] = [];
  const granted = Object.keys(grant.tables).sort();
  const declared = (Object.entries(access.tables) as [TableId, TableAccess | undefined][])
    .filter(([, level]) => level)
    .map(([table]) => table)
    .sort();
  if (granted.join() !== declared.join()) problems.push(`tables ${granted.join(', ') || 'none'} ≠ declared ${declared.join(', ') || 'none'}`);
  for (const [table, tableGrant] of Object.entries(grant.tables) as [TableId, TableGrant][]) {
    const level = access.tables[table];
    const beyond = tableGrant.calls.filter((call) => level && !LEVEL_CALLS[level].has(call));
    if (beyond.length > 0) problems.push(`${beyond.join(', ')} on ${table} exceed its declared level '${level}'`);
    if ((tableGrant.queryIndexes?.length ?? 0) > 0 && level && !LEVEL_CALLS[level].has('Query')) problems.push(`index queries on ${table} exceed '${level}'`);
    const indexes = new Set(TABLES[table].globalIndexes.map((index) => index.indexName));
    for (const index of tableGrant.queryIndexes ?? []) if (!indexes.has(index)) problems.push(`${table} has no index ${index}`);
  }
  const usesBucket = Object.keys(grant.objects ?? {}).length > 0 || (grant.listObjects?.length ?? 0) > 0;
  if (usesBucket !== (access.bucket !== undefined || access.attachmentObjects !== undefined || access.exportObjects !== undefined))
    problems.push('bucket use differs from the declared access');
  const exportCalls = grant.objects?.exports ?? [];
  if (exportCalls.length > 0 !== (access.exportObjects !== undefined)) problems.push('export files use differs from the declared access');
  if (access.exportObjects === 'get' && exportCalls.some((call) => call !== 'GetObject')) problems.push('export files: only GetObject is declared');
  for (const queueId of Object.keys(QUEUES) as QueueId[]) {
    if (queueId === 'imports') continue;
    const uses = grant.queues?.[queueId] ?? [];
    const declared = access.queues?.[queueId];
    if (uses.includes('send') !== (declared !== undefined)) problems.push(`sending to the ${queueId} queue differs from the declared access`);
    if (uses.includes('consume') !== (consumedQueue === queueId)) problems.push(`consuming the ${queueId} queue differs from the worker trigger`);
    if ((grant.deadLetterQueues?.[queueId] !== undefined) !== (declared === 'send-and-settle-dead-letters'))
      problems.push(`the ${queueId} dead-letter queue use differs from the declared access`);
  }
  const sends = grant.importQueue?.includes('send') ?? false;
  if (sends !== (access.importQueue === 'send')) problems.push('sending to the import queue differs from the declared access');
  if ((grant.importQueue?.includes('consume') ?? false) !== consumesImportQueue) problems.push('consuming the import queue differs from the worker trigger');
  if ((grant.importDeadLetterQueue !== undefined) !== (access.importDeadLetterQueue === 'consume'))
    problems.push('dead-letter queue use differs from the declared access');
  if ((grant.cursorSecret ?? false) !== (access.cursorSecret ?? false)) problems.push('cursor secret differs from the declared access');
  const secretCalls = access.webhookSecrets === 'seal-and-open' ? 'GenerateDataKey,Decrypt' : access.webhookSecrets === 'open' ? 'Decrypt' : '';
  if ((grant.webhookSecrets ?? []).join() !== secretCalls) problems.push('webhook secrets calls differ from the declared access');
  if (problems.length > 0) throw new Error(`Function ${id}: its grant in infra/grants.ts does not match its declared access: ${problems.join('; ')}.`);
}
