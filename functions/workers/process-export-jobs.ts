import { requiredEnv } from '../../lib/platform/config/env.ts';
import { BomLineExports } from '../../lib/exports/domain/bom-lines.ts';
import { ExportProcessor } from '../../lib/exports/domain/process-export.ts';
import { RowErrorExports } from '../../lib/exports/domain/row-errors.ts';
import { ExportSources } from '../../lib/exports/domain/sources.ts';
import KIND_SUMMARIES from '../../lib/imports/domain/kind-summaries.generated.json' with { type: 'json' };
import type { ImportKindSummary } from '../../lib/imports/domain/types.ts';
import { jobQueueWorker } from '../../lib/platform/jobs/job-workers.ts';
import { AuditStore } from '../../lib/audit/store/audit-store.ts';
import { BomsStore } from '../../lib/boms/store/boms-store.ts';
import { EventsStore } from '../../lib/events/store/events-store.ts';
import { ExportFilesStore } from '../../lib/exports/store/export-files.ts';
import { ExportJobsStore } from '../../lib/exports/store/export-jobs-store.ts';
import { ExportQueue } from '../../lib/exports/store/export-queue.ts';
import { ExportSlotsStore } from '../../lib/exports/store/export-slots.ts';
import { FilesStore } from '../../lib/platform/aws/files-store.ts';
import { ImportJobsStore } from '../../lib/imports/store/import-jobs-store.ts';
import { InventoryReadStore } from '../../lib/inventory/store/inventory-reads.ts';
import { InventoryStore } from '../../lib/inventory/store/inventory-store.ts';
import { ReservationBeforeImagesStore } from '../../lib/reservations/store/reservation-before-images.ts';
import { ReservationsStore } from '../../lib/reservations/store/reservations-store.ts';
import { BUCKET_ENV_VAR, EXPORT_QUEUE, EXPORT_QUEUE_ENV_VAR, TABLES } from '../../lib/platform/storage/tables.ts';
import { TransactionWriter } from '../../lib/platform/dynamo/transaction-writer.ts';

const inventoryTable = requiredEnv(TABLES.inventory.envVar);
const bucket = requiredEnv(BUCKET_ENV_VAR);
const jobs = new ExportJobsStore(inventoryTable);
const queue = new ExportQueue(requiredEnv(EXPORT_QUEUE_ENV_VAR));
const events = new EventsStore(requiredEnv(TABLES.events.envVar));
const boms = new BomsStore(inventoryTable);
const inventory = new InventoryStore(inventoryTable);
const importJobs = new ImportJobsStore(inventoryTable);
const importFiles = new FilesStore(bucket);
const kindSummaries = KIND_SUMMARIES as readonly ImportKindSummary[];
const reservations = new ReservationsStore(inventoryTable);
const reservationBeforeImages = new ReservationBeforeImagesStore(inventoryTable);

const sources = new ExportSources({
  inventory: new InventoryReadStore(inventoryTable),
  audit: new AuditStore(requiredEnv(TABLES.audit.envVar)),
  events,
  boms: new BomLineExports({
    list: (organizationId, filter, after, limit) => boms.list(organizationId, filter, after, limit),
    get: (organizationId, bomId) => boms.get(organizationId, bomId),
    getByCodes: (organizationId, codes) => boms.getByCodes(organizationId, codes),
    items: async (organizationId, ids) => new Map([...(await inventory.getByIds(organizationId, 'item', ids))].map(([id, entry]) => [id, entry.record])),
  }),
  importRowErrors: new RowErrorExports({
    job: (organizationId, jobId) => importJobs.get(organizationId, jobId),
    rowErrors: (organizationId, jobId, after, limit) => importJobs.listRowErrors(organizationId, jobId, after, limit),
    openFile: (fileKey) => importFiles.open(fileKey),
    kindColumns: (kind) => kindSummaries.find((summary) => summary.kind === kind)?.columns,
  }),
  reservations: {
    page: (organizationId, after, limit) => reservations.page(organizationId, {}, after, limit),
    before: (organizationId, changes) => reservationBeforeImages.read(organizationId, changes),
  },
});

/** The worker's ports, exported for the integration tests that run the processor with faults injected. */
export const exportPorts = {
  jobs,
  files: new ExportFilesStore(bucket),
  sources,
  events,
  writer: new TransactionWriter({ events: requiredEnv(TABLES.events.envVar), audit: requiredEnv(TABLES.audit.envVar) }),
  slots: new ExportSlotsStore(inventoryTable, jobs),
  continueLater: (message: { organizationId: string; jobId: string; handoffsWithoutProgress: number }) => queue.send(message),
  retryLater: (message: { organizationId: string; jobId: string; handoffsWithoutProgress: number }, delaySeconds: number) =>
    queue.sendLater(message, delaySeconds),
};

const processor = new ExportProcessor(exportPorts);

/** The export queue's consumer: the job flows' one queue-worker wiring (lib/platform/jobs/job-workers.ts). */
export const handler = jobQueueWorker({
  processor,
  jobs,
  resend: (message) => queue.send(message),
  maxReceiveCount: EXPORT_QUEUE.maxReceiveCount,
  flow: 'export',
  lastReceiveFailure: {
    code: 'processing-error',
    message: 'The export could not be written after several attempts. Submit it again, or contact support with the export id.',
  },
  countMessages: () => undefined,
});
