import type { ResourceAccess } from './routes/types.ts';
import { EXPORT_QUEUE, IMPORT_QUEUE } from './store/tables.ts';
import type { QueueId } from './store/tables.ts';

/**
 * Non-HTTP functions: the SQS consumer of import jobs and the sweeper that re-enqueues jobs
 * committed but never sent. The CDK stack (infra/background-flow.ts) and the local runtime
 * (local/event-source-poller.ts, local/scheduler.ts) read this list, as they read lib/routes/
 * for HTTP functions.
 */

export interface QueueWorkerDefinition {
  id: string;
  trigger: 'queue';
  handler: string;
  /** Which queue of QUEUES (lib/store/tables.ts) feeds it. */
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

export type WorkerDefinition = QueueWorkerDefinition | ScheduledWorkerDefinition;

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
    // Reads every table it exports (inventory: records, BOMs, import jobs and row errors; events:
    // the snapshot's roll-back; audit: the audit-events kind), writes its job, its events and
    // audit entry; import files (import-row-errors), its own files; hands the rest on.
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
    access: { tables: { inventory: 'read-write', events: 'read-write', audit: 'write' }, exportObjects: 'write', queues: { exports: 'send-and-settle-dead-letters' } },
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
