import type { ResourceAccess } from '../platform/contracts/route-types.ts';
import { BUILD_QUEUE, EXPORT_QUEUE, IMPORT_QUEUE, WEBHOOK_QUEUE } from '../platform/storage/tables.ts';
import type { QueueId, TableId } from '../platform/storage/tables.ts';

/**
 * Non-HTTP functions: the SQS consumer of import jobs and the sweeper that re-enqueues jobs
 * committed but never sent. The CDK stack (infra/background-flow.ts) and the local runtime
 * (local/event-source-poller.ts, local/scheduler.ts) read this list, as they read lib/<area>/routes.ts
 * for HTTP functions.
 */

export interface QueueWorkerDefinition {
  id: string;
  trigger: 'queue';
  handler: string;
  /** Which queue of QUEUES (lib/platform/storage/tables.ts) feeds it. */
  queue: QueueId;
  timeoutSeconds: number;
  batchSize: number;
  /** Upper bound of concurrent invocations the event source mapping may run. */
  maxConcurrency: number;
  access: ResourceAccess;
}

export interface ScheduledWorkerDefinition {
  id: string;
  trigger: 'schedule';
  handler: string;
  everySeconds: number;
  timeoutSeconds: number;
  access: ResourceAccess;
}

/**
 * A worker fed by a table's DynamoDB stream (new images), as Lambda's event source mapping feeds
 * it: batches in shard order, a failed batch split in halves (bisect) and retried, what still
 * fails after `maxRetries` sent to the on-failure destination (a queue's DLQ). Locally
 * local/stream-poller.ts reads the stream of DynamoDB Local the same way.
 */
export interface StreamWorkerDefinition {
  id: string;
  trigger: 'stream';
  handler: string;
  /** Whose stream (its spec in lib/platform/storage/tables.ts sets `stream`). */
  table: TableId;
  timeoutSeconds: number;
  batchSize: number;
  /** Seconds the mapping may gather records before invoking (latency against batch size). */
  maxBatchingWindowSeconds: number;
  maxRetries: number;
  /** Which queue's dead-letter queue receives the batches that failed every retry. */
  onFailureQueue: QueueId;
  /** Lambda filter criteria: only matching records invoke the worker (the local poller applies the same). */
  filter: { eventName: readonly string[]; dynamodb: { NewImage: { entity: { S: readonly string[] } } } };
  access: ResourceAccess;
}

export type WorkerDefinition = QueueWorkerDefinition | ScheduledWorkerDefinition | StreamWorkerDefinition;

export const WORKERS: readonly WorkerDefinition[] = [
  {
    id: 'processImportJobs',
    trigger: 'queue',
    handler: 'functions/workers/process-import-jobs.ts',
    queue: IMPORT_QUEUE.id,
    timeoutSeconds: IMPORT_QUEUE.workerTimeoutSeconds,
    batchSize: 5,
    maxConcurrency: 4,
    // importQueue: it re-enqueues the rest of a job that would outlast its timeout.
    access: { tables: { inventory: 'read-write', events: 'read-write', audit: 'write' }, bucket: 'read', importQueue: 'send' },
  },
  {
    id: 'dispatchWebhookEvents',
    trigger: 'stream',
    handler: 'functions/workers/dispatch-webhook-events.ts',
    table: 'events',
    timeoutSeconds: 30,
    batchSize: 100,
    maxBatchingWindowSeconds: 0,
    maxRetries: 10,
    onFailureQueue: WEBHOOK_QUEUE.id,
    // New event items only (`entity` as lib/platform/dynamo/entities.ts tags them): not the sequence counter, not TTL deletions.
    filter: { eventName: ['INSERT'], dynamodb: { NewImage: { entity: { S: ['event'] } } } },
    // Reads endpoints, puts delivery tasks (inventory); queues one message per task.
    access: { tables: { inventory: 'read-write' }, queues: { webhooks: 'send' } },
  },
  {
    id: 'deliverWebhooks',
    trigger: 'queue',
    handler: 'functions/workers/deliver-webhooks.ts',
    queue: WEBHOOK_QUEUE.id,
    timeoutSeconds: WEBHOOK_QUEUE.workerTimeoutSeconds,
    batchSize: 10,
    maxConcurrency: 20,
    // Tasks, the log, endpoints (inventory); the event's envelope (events); disabling writes its
    // audit entry; retries and replay pages are new messages; opening secrets needs KMS Decrypt.
    access: { tables: { inventory: 'read-write', events: 'read', audit: 'write' }, queues: { webhooks: 'send' }, webhookSecrets: 'open' },
  },
  {
    id: 'sweepImportJobs',
    trigger: 'schedule',
    handler: 'functions/workers/sweep-import-jobs.ts',
    everySeconds: 60,
    timeoutSeconds: 30,
    // events + audit: failing a job writes its import.failed audit entry; the dead-letter queue
    // names the jobs whose every attempt died.
    access: { tables: { inventory: 'read-write', events: 'read-write', audit: 'write' }, importQueue: 'send', importDeadLetterQueue: 'consume' },
  },
  {
    id: 'processExportJobs',
    trigger: 'queue',
    handler: 'functions/workers/process-export-jobs.ts',
    queue: EXPORT_QUEUE.id,
    timeoutSeconds: EXPORT_QUEUE.workerTimeoutSeconds,
    // One export per invocation: an export fills its invocation's time by itself.
    batchSize: 1,
    maxConcurrency: 2,
    // Reads every table it exports (inventory: records, BOMs, import jobs and row errors,
    // reservations and their before-images; events: the snapshot's roll-back; audit: the
    // audit-events kind), writes its job, its events and audit entry; import files
    // (import-row-errors), its own files; hands the rest on.
    access: {
      tables: { inventory: 'read-write', events: 'read-write', audit: 'read-write' },
      bucket: 'read',
      exportObjects: 'write',
      queues: { exports: 'send' },
    },
  },
  {
    id: 'sweepExportJobs',
    trigger: 'schedule',
    handler: 'functions/workers/sweep-export-jobs.ts',
    everySeconds: 60,
    timeoutSeconds: 30,
    // As the import sweeper, for export jobs: sends what was never queued, fails what died.
    access: {
      tables: { inventory: 'read-write', events: 'read-write', audit: 'write' },
      exportObjects: 'write',
      queues: { exports: 'send-and-settle-dead-letters' },
    },
  },
  {
    id: 'sweepWebhookDeliveries',
    trigger: 'schedule',
    handler: 'functions/workers/sweep-webhook-deliveries.ts',
    everySeconds: 60,
    timeoutSeconds: 30,
    // Reads the due index and moves a lost task's or replay's sweep-at on (inventory), then sends
    // its message again (docs/webhooks.md "The due-task sweep").
    access: { tables: { inventory: 'read-write' }, queues: { webhooks: 'send' } },
  },
  {
    id: 'sweepReservationExpiries',
    trigger: 'schedule',
    handler: 'functions/workers/sweep-reservation-expiries.ts',
    everySeconds: 60,
    timeoutSeconds: 60,
    // Reads the expiry index and each due reservation, its items, locations, records and totals;
    // releases what is left in one transaction with its events and audit entry
    // (docs/inventory.md "Reservations and available stock").
    access: { tables: { inventory: 'read-write', events: 'read-write', audit: 'write' } },
  },
  {
    id: 'processBuildJobs',
    trigger: 'queue',
    handler: 'functions/workers/process-build-jobs.ts',
    queue: BUILD_QUEUE.id,
    timeoutSeconds: BUILD_QUEUE.workerTimeoutSeconds,
    // One build per invocation: a build's steps fill the invocation by themselves.
    batchSize: 1,
    maxConcurrency: 4,
    // Each step reads the build, its BOM revision, items, locations and stock, and commits stock,
    // movements, its draw slice or provenance and the build's checkpoint with its events and, at
    // the end, its audit entry (docs/boms.md "Builds"); a build out of time hands itself on.
    access: { tables: { inventory: 'read-write', events: 'read-write', audit: 'write' }, queues: { builds: 'send' } },
  },
  {
    id: 'sweepBuildJobs',
    trigger: 'schedule',
    handler: 'functions/workers/sweep-build-jobs.ts',
    everySeconds: 60,
    timeoutSeconds: 30,
    // Reads the builds' shards of the active-jobs index and the builds; sends a stalled build's message again.
    access: { tables: { inventory: 'read' }, queues: { builds: 'send' } },
  },
  {
    id: 'sweepAttachmentObjects',
    trigger: 'schedule',
    handler: 'functions/workers/sweep-attachment-objects.ts',
    everySeconds: 3600,
    timeoutSeconds: 300,
    // Lists and deletes attachment bodies only; reads records to know which bodies they name, and
    // reads and writes its own sweep position so the next run continues where this one stopped.
    access: { tables: { inventory: 'read-write' }, attachmentObjects: 'list-delete' },
  },
];
