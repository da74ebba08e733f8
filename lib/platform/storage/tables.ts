import { SQS_MAX_MESSAGE_RETENTION_DAYS } from '../jobs/queue-limits.ts';

/**
 * The table definitions: the single source for the CDK stack (infra/) and the local runtime
 * (local/), which both turn these specs into real tables. Pure data, no AWS SDK import, so
 * infra can read it without pulling runtime code.
 */

export type AttributeType = 'S' | 'N';

export interface KeyAttribute {
  name: string;
  type: AttributeType;
}

export interface GlobalIndexSpec {
  indexName: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  /**
   * What the index copies of an item: everything (`ALL`), or only the keys (`KEYS_ONLY`), whose
   * entry changes only when its key attributes do, so that updates of the rest of the item never
   * write the index.
   */
  projection: 'ALL' | 'KEYS_ONLY';
}

export interface TableSpec {
  /** Logical id, also the suffix of the physical name: `<prefix>-<id>`. */
  id: TableId;
  /** Environment variable through which a function learns the physical table name. */
  envVar: string;
  partitionKey: KeyAttribute;
  sortKey?: KeyAttribute;
  globalIndexes: GlobalIndexSpec[];
  /** Attribute holding an epoch-seconds expiry that DynamoDB TTL deletes on. */
  ttlAttribute?: string;
  /** A DynamoDB stream of the table's changes (new images): what the webhook dispatcher reads. */
  stream?: 'NEW_IMAGE';
  description: string;
}

export type TableId = 'keys' | 'idempotency' | 'rate-limits' | 'inventory' | 'events' | 'audit';

const pk: KeyAttribute = { name: 'pk', type: 'S' };
const sk: KeyAttribute = { name: 'sk', type: 'S' };
const gsi1: GlobalIndexSpec = { indexName: 'gsi1', partitionKey: { name: 'gsi1pk', type: 'S' }, sortKey: { name: 'gsi1sk', type: 'S' }, projection: 'ALL' };
/**
 * The inventory table's second general index: a transfer's ledger entry under its destination
 * (its source is in gsi1), so a movement stays ONE item (docs/inventory.md "The stock model").
 */
const gsi2: GlobalIndexSpec = { indexName: 'gsi2', partitionKey: { name: 'gsi2pk', type: 'S' }, sortKey: { name: 'gsi2sk', type: 'S' }, projection: 'ALL' };

/**
 * The import jobs handed to the queue and not finished (docs/operations.md "Workers (import
 * queue and sweepers)"): sparse (only those jobs carry its keys), keys only (a chunk's
 * checkpoint, which rewrites the job, never writes it), and spread over `ACTIVE_JOB_SHARDS`
 * partitions by job id (lib/platform/dynamo/keys.ts), so no one partition takes every tenant's jobs. The
 * sweeper reads every shard.
 */
export const ACTIVE_JOBS_INDEX = {
  indexName: 'active-jobs',
  partitionKey: { name: 'activeShard', type: 'S' },
  sortKey: { name: 'activeJob', type: 'S' },
  projection: 'KEYS_ONLY',
} as const satisfies GlobalIndexSpec;

/**
 * The lot-trace index (docs/inventory.md "Tracing a lot"): one partition per item × lot holding
 * the builds that consumed it (their provenance entries, one per stock record drawn) and the
 * builds that produced it (their provenance pointers). Both items are already in every build's
 * transaction, so the index costs a build no action; it projects the whole item, so a level of a
 * trace reads the provenance itself.
 */
export const LOTS_INDEX = {
  indexName: 'lots',
  partitionKey: { name: 'lotPk', type: 'S' },
  sortKey: { name: 'lotSk', type: 'S' },
  projection: 'ALL',
} as const satisfies GlobalIndexSpec;

export const TABLES: Record<TableId, TableSpec> = {
  keys: {
    id: 'keys',
    envVar: 'KEYS_TABLE_NAME',
    partitionKey: pk,
    globalIndexes: [gsi1],
    description: "API keys by SHA-256 hash; gsi1 lists an organization's keys and finds a key by id.",
  },
  idempotency: {
    id: 'idempotency',
    envVar: 'IDEMPOTENCY_TABLE_NAME',
    partitionKey: pk,
    globalIndexes: [],
    ttlAttribute: 'ttl',
    description: 'Idempotency claims and stored responses per organization + key (24 h).',
  },
  'rate-limits': {
    id: 'rate-limits',
    envVar: 'RATE_LIMITS_TABLE_NAME',
    partitionKey: pk,
    globalIndexes: [],
    ttlAttribute: 'ttl',
    description: 'Fixed-window request counters per API key.',
  },
  inventory: {
    id: 'inventory',
    envVar: 'INVENTORY_TABLE_NAME',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1, ACTIVE_JOBS_INDEX, gsi2, LOTS_INDEX],
    // Import jobs and their row errors (docs/imports.md "Retention"), export jobs and reservations'
    // before-images (docs/exports.md "Snapshots") carry it.
    ttlAttribute: 'ttl',
    description:
      'Items, locations, stock, movements, BOMs, revisions, builds, import jobs, row errors (both expiring), reservations and their before-images (expiring), attachments.',
  },
  events: {
    id: 'events',
    envVar: 'EVENTS_TABLE_NAME',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1],
    ttlAttribute: 'ttl',
    // Committed events reach the webhook dispatcher through it (docs/webhooks.md "Delivery").
    stream: 'NEW_IMAGE',
    description: 'Per-organization gapless event sequence (30 days).',
  },
  audit: {
    id: 'audit',
    envVar: 'AUDIT_TABLE_NAME',
    partitionKey: pk,
    sortKey: sk,
    globalIndexes: [gsi1],
    description: 'Audit events per organization, newest first.',
  },
};

export const TABLE_IDS = Object.keys(TABLES) as TableId[];

/** Physical name of a table for a stage prefix, e.g. `customer-api-dev-keys`. */
export function physicalTableName(prefix: string, id: TableId): string {
  return `${prefix}-${id}`;
}

export const BUCKET_ENV_VAR = 'FILES_BUCKET_NAME';
export const IMPORT_QUEUE_ENV_VAR = 'IMPORT_QUEUE_URL';
export const IMPORT_DLQ_ENV_VAR = 'IMPORT_DLQ_URL';
export const EXPORT_QUEUE_ENV_VAR = 'EXPORT_QUEUE_URL';
export const EXPORT_DLQ_ENV_VAR = 'EXPORT_DLQ_URL';

/**
 * A queue feeding a worker of lib/app/workers.ts, with its dead-letter queue. The CDK stack
 * (infra/background-flow.ts) and the local stack (local/aws-stack/provision.ts) both build every
 * entry of QUEUES from it.
 */
export interface QueueSpec {
  id: string;
  deadLetterId: string;
  /** Receives before a message moves to the dead-letter queue. */
  maxReceiveCount: number;
  visibilityTimeoutSeconds: number;
  messageRetentionDays: number;
  deadLetterRetentionDays: number;
  /** Environment variables that give the code the queue's and the DLQ's URL. */
  envVar: string;
  deadLetterEnvVar: string;
}

/** The import queue and its dead-letter queue (used by the import worker: docs/operations.md "Workers"). */
export const IMPORT_QUEUE = {
  id: 'imports',
  deadLetterId: 'imports-dlq',
  maxReceiveCount: 5,
  /** Worker timeout; the queue's visibility timeout is 6× this (AWS guidance for SQS sources). */
  workerTimeoutSeconds: 60,
  visibilityTimeoutSeconds: 360,
  deadLetterRetentionDays: 14,
  /** A job is never judged stalled for waiting in the queue within this (docs/imports.md "Guarantees"). */
  messageRetentionDays: SQS_MAX_MESSAGE_RETENTION_DAYS,
  envVar: IMPORT_QUEUE_ENV_VAR,
  deadLetterEnvVar: IMPORT_DLQ_ENV_VAR,
} as const satisfies QueueSpec & { workerTimeoutSeconds: number };

/** The export queue and its dead-letter queue (the export worker: docs/exports.md "Guarantees"). */
export const EXPORT_QUEUE = {
  id: 'exports',
  deadLetterId: 'exports-dlq',
  maxReceiveCount: 5,
  /** An export continues across invocations, so a long one needs no longer timeout. */
  workerTimeoutSeconds: 300,
  visibilityTimeoutSeconds: 1800,
  deadLetterRetentionDays: 14,
  messageRetentionDays: 14,
  envVar: EXPORT_QUEUE_ENV_VAR,
  deadLetterEnvVar: EXPORT_DLQ_ENV_VAR,
} as const satisfies QueueSpec & { workerTimeoutSeconds: number };

export const WEBHOOK_QUEUE_ENV_VAR = 'WEBHOOK_QUEUE_URL';
/** The KMS key that wraps the data keys of webhook secrets (AWS); locally a key file instead (lib/webhooks/store/webhook-secrets.ts). */
export const WEBHOOK_KMS_KEY_ENV_VAR = 'WEBHOOK_SECRETS_KMS_KEY_ID';
export const WEBHOOK_LOCAL_KEY_FILE_ENV_VAR = 'WEBHOOK_SECRETS_KEY_FILE';
export const WEBHOOK_DLQ_ENV_VAR = 'WEBHOOK_DLQ_URL';

/**
 * The webhook delivery queue (docs/webhooks.md "Retry waits"): attempt and replay messages. A
 * wait longer than SQS's 15-minute delay is a chain of fresh messages, so no message lives longer
 * than one delay plus its retries; the retention (4 days) still outlasts the whole schedule
 * (about 3 days), so even a single message could wait it out.
 */
export const WEBHOOK_QUEUE = {
  id: 'webhooks',
  deadLetterId: 'webhooks-dlq',
  maxReceiveCount: 10,
  /** Worker timeout: a batch of concurrent attempts of at most 15 s each, plus the storage calls. */
  workerTimeoutSeconds: 30,
  visibilityTimeoutSeconds: 180,
  messageRetentionDays: 4,
  deadLetterRetentionDays: 14,
  envVar: WEBHOOK_QUEUE_ENV_VAR,
  deadLetterEnvVar: WEBHOOK_DLQ_ENV_VAR,
} as const satisfies QueueSpec & { workerTimeoutSeconds: number };

export const BUILD_QUEUE_ENV_VAR = 'BUILD_QUEUE_URL';
export const BUILD_DLQ_ENV_VAR = 'BUILD_DLQ_URL';

/**
 * The build queue (docs/boms.md "Builds"): one message per build to run (or go on running). A
 * build continues across invocations from its checkpoint, so a long one needs no longer timeout.
 */
export const BUILD_QUEUE = {
  id: 'builds',
  deadLetterId: 'builds-dlq',
  maxReceiveCount: 5,
  workerTimeoutSeconds: 120,
  visibilityTimeoutSeconds: 720,
  messageRetentionDays: 4,
  deadLetterRetentionDays: 14,
  envVar: BUILD_QUEUE_ENV_VAR,
  deadLetterEnvVar: BUILD_DLQ_ENV_VAR,
} as const satisfies QueueSpec & { workerTimeoutSeconds: number };

/** Every queue of the service, by id: a new background flow adds its queue here. */
export const QUEUES = {
  [IMPORT_QUEUE.id]: IMPORT_QUEUE,
  [EXPORT_QUEUE.id]: EXPORT_QUEUE,
  [WEBHOOK_QUEUE.id]: WEBHOOK_QUEUE,
  [BUILD_QUEUE.id]: BUILD_QUEUE,
} as const satisfies Record<string, QueueSpec>;
export type QueueId = keyof typeof QUEUES;
export const QUEUE_IDS = Object.keys(QUEUES) as QueueId[];

/** Physical queue name for a stage prefix. */
export function physicalQueueName(prefix: string, id: string): string {
  return `${prefix}-${id}`;
}

/** Bucket holding import files and attachments. On AWS the name is left to CloudFormation. */
export const FILES_BUCKET = { id: 'files', localName: 'customer-api-local-files' } as const;
