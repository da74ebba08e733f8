import { createHash } from 'node:crypto';
import type { StoredEvent } from '../../lib/events/domain/read-feed.ts';
import type { EventEnvelope } from '../../lib/platform/events/types.ts';
import type { ExportFormat, ExportJobState, ExportProgress } from '../../lib/exports/domain/job.ts';
import { ExportProcessor, type ExportJobMessage, type ExportProcessPorts, type ExportSlots } from '../../lib/exports/domain/process-export.ts';
import { ExportSources, type ExportSourcePorts } from '../../lib/exports/domain/sources.ts';
import { newExportJob } from '../../lib/exports/domain/submit.ts';
import type { InventoryReadStorage } from '../../lib/inventory/domain/reads.ts';
import type { StockRecord } from '../../lib/inventory/domain/stock.ts';
import type { CommandWriter } from '../../lib/platform/write/ports.ts';

/**
 * The export worker (lib/exports/domain/process-export.ts) on in-memory ports, for unit tests of
 * its loop: jobs, an S3-like multipart store, stock records paged by id, an event log whose reads
 * are counted, the organization slots, and a writer that applies each write (a closure) and fails
 * a checkpoint whose condition no longer holds as the stores do.
 */

/** A write of the in-memory stores: applied when the transaction runs; throws when its condition fails. */
export type MemoryWrite = () => void;

function stepAlreadyCommitted(message: string): Error {
  const error = new Error(message);
  error.name = 'ChunkAlreadyAppliedError';
  return error;
}

export class MemoryEvents {
  readonly log: StoredEvent[] = [];
  readFromCalls = 0;
  eventsRead = 0;
  lastSequenceCalls = 0;

  append(organizationId: string, type: string, data: Record<string, unknown>, occurredAt = '2026-11-27T10:00:00.000Z'): void {
    const sequence = this.log.length + 1;
    const envelope = { id: `evt_${String(sequence).padStart(12, '0')}`, type, version: 1, occurredAt, organizationId, data } as unknown as EventEnvelope;
    this.log.push({ sequence, committedAt: occurredAt, envelope });
  }

  async lastSequence(): Promise<number> {
    this.lastSequenceCalls += 1;
    return this.log.length;
  }

  async readFrom(_organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEvent[]> {
    this.readFromCalls += 1;
    const batch = this.log.filter((event) => event.sequence >= fromSequence).slice(0, maxItems);
    this.eventsRead += batch.length;
    return batch;
  }

  async find(_organizationId: string, sequence: number): Promise<StoredEvent | undefined> {
    return this.log.find((event) => event.sequence === sequence);
  }
}

/** Stock records of one organization, by id; `onPage` runs before each page is read (writes during the export). */
export class MemoryStock {
  readonly records = new Map<string, StockRecord>();
  pagesRead = 0;
  onPage: (() => void) | undefined;

  constructor(private readonly events: MemoryEvents) {}

  put(record: StockRecord): void {
    this.records.set(record.id, { ...record });
  }

  /** A committed change of on-hand with its `stock.changed` event, as the ledger writes it. */
  change(organizationId: string, id: string, onHand: number, at: string, template?: Omit<StockRecord, 'onHand' | 'updatedAt' | 'createdAt'>): void {
    const before = this.records.get(id);
    const base = before ?? { ...template!, onHand: 0, createdAt: at, updatedAt: '' };
    const after: StockRecord = { ...base, onHand, updatedAt: at };
    this.records.set(id, after);
    this.events.append(
      organizationId,
      'stock.changed',
      {
        stockRecordId: id,
        itemId: base.itemId,
        sku: base.sku,
        locationId: base.locationId,
        locationCode: base.locationCode,
        lot: base.lot,
        previousQuantity: base.onHand,
        // As the ledger writes it (lib/stock/domain/ledger.ts): null when this change creates the record.
        previousUpdatedAt: before ? before.updatedAt : null,
        quantity: onHand,
        delta: onHand - base.onHand,
        movementId: 'mov_x',
        reason: null,
      },
      at,
    );
  }

  storage(): InventoryReadStorage {
    const notUsed = async (): Promise<never> => {
      throw new Error('not used by stock-records exports');
    };
    return {
      record: notUsed,
      movement: notUsed,
      items: notUsed,
      locations: notUsed,
      movements: notUsed,
      stockRecords: async (_organizationId, _filter, after, limit) => {
        this.onPage?.();
        this.pagesRead += 1;
        const ids = [...this.records.keys()].sort().filter((id) => after === undefined || id > after);
        const items = ids.slice(0, limit).map((id) => ({ ...this.records.get(id)! }));
        return { items, ...(items.length === 0 ? {} : { last: items.at(-1)!.id }), more: ids.length > limit };
      },
    };
  }
}

export function stockRecord(id: string, onHand: number, updatedAt = '2026-11-01T00:00:00.000Z'): StockRecord {
  return {
    id,
    itemId: 'itm_0000000001',
    sku: `SKU-${id}`,
    locationId: 'loc_0000000001',
    locationCode: 'L1',
    lot: null,
    onHand,
    createdAt: '2026-01-01T00:00:00.000Z',
    updatedAt,
  };
}

export class MemorySlots implements ExportSlots<MemoryWrite> {
  readonly running = new Map<string, Set<string>>();
  mostHeld = 0;

  async acquire(organizationId: string, jobId: string, cap: number): Promise<boolean> {
    const held = this.running.get(organizationId) ?? new Set<string>();
    if (!held.has(jobId) && held.size >= cap) return false;
    held.add(jobId);
    this.running.set(organizationId, held);
    this.mostHeld = Math.max(this.mostHeld, held.size);
    return true;
  }

  releaseWrite(organizationId: string, jobId: string): MemoryWrite {
    return () => void this.running.get(organizationId)?.delete(jobId);
  }
}

export class MemoryExportWorld {
  readonly jobs = new Map<string, ExportJobState>();
  readonly uploads = new Map<string, Map<number, Buffer>>();
  readonly objects = new Map<string, Buffer>();
  readonly events = new MemoryEvents();
  readonly stock = new MemoryStock(this.events);
  readonly slots = new MemorySlots();
  readonly handOffs: ExportJobMessage[] = [];
  readonly retries: Array<{ message: ExportJobMessage; delaySeconds: number }> = [];
  private uploadCount = 0;

  submit(organizationId: string, kind: string, format: ExportFormat = 'csv', filters: Record<string, unknown> = {}): ExportJobState {
    const job = newExportJob(organizationId, { kind, format, filters }, new Date('2026-11-27T09:00:00.000Z'));
    // Ids minted in one millisecond do not sort by submission; the map keeps them apart all the same.
    this.jobs.set(job.id, job);
    return job;
  }

  job(jobId: string): ExportJobState {
    const job = this.jobs.get(jobId);
    if (!job) throw new Error(`no export ${jobId}`);
    return structuredClone(job);
  }

  file(jobId: string): string {
    return this.objects.get(this.job(jobId).objectKey)?.toString('utf8') ?? '';
  }

  ports(overrides: Partial<ExportProcessPorts<MemoryWrite>> = {}): ExportProcessPorts<MemoryWrite> {
    const jobs = this.jobs;
    const writer: CommandWriter<MemoryWrite> = {
      run: async (_context, build) => {
        const plan = await build();
        for (const write of plan.writes) write();
        return { result: plan.result, events: [], attempts: 1 };
      },
    };
    const sourcePorts = { inventory: this.stock.storage(), events: this.events } as unknown as ExportSourcePorts;
    return {
      jobs: {
        get: async (_organizationId, jobId) => (jobs.has(jobId) ? structuredClone(jobs.get(jobId)!) : undefined),
        start: async (job, progress, asOfEventId, now) => {
          const current = jobs.get(job.id)!;
          if (current.status !== 'queued') return { job: structuredClone(current), won: false };
          const started: ExportJobState = { ...current, status: 'processing', startedAt: now, progress, asOfEventId, progressAt: now };
          jobs.set(job.id, started);
          return { job: structuredClone(started), won: true };
        },
        checkpointWrite: (job, partsBefore, progress: ExportProgress, rowCount) => () => {
          const current = jobs.get(job.id)!;
          if (current.status !== 'processing' || current.progress?.parts.length !== partsBefore) throw stepAlreadyCommitted(`export ${job.id} moved on`);
          jobs.set(job.id, { ...current, progress: structuredClone(progress), rowCount });
        },
        finishWrite: (job, outcome) => () => {
          const current = jobs.get(job.id)!;
          if (current.status !== 'queued' && current.status !== 'processing') throw stepAlreadyCommitted(`export ${job.id} already finished`);
          jobs.set(
            job.id,
            outcome.status === 'succeeded'
              ? { ...current, status: 'succeeded', ...outcome.completion }
              : { ...current, status: 'failed', failure: outcome.failure, completedAt: outcome.completedAt },
          );
        },
      },
      files: {
        createUpload: async () => {
          this.uploadCount += 1;
          const id = `upload-${this.uploadCount}`;
          this.uploads.set(id, new Map());
          return id;
        },
        uploadPart: async (_key, uploadId, partNumber, body) => {
          this.uploads.get(uploadId)!.set(partNumber, Buffer.from(body));
          return `etag-${uploadId}-${partNumber}-${body.length}`;
        },
        completeUpload: async (key, uploadId, parts) => {
          const stored = this.uploads.get(uploadId)!;
          this.objects.set(key, Buffer.concat(parts.map(({ partNumber }) => stored.get(partNumber)!)));
        },
        abortUpload: async (_key, uploadId) => void this.uploads.delete(uploadId),
        digest: async (key) => {
          const body = this.objects.get(key) ?? Buffer.alloc(0);
          return { sizeBytes: body.length, sha256: createHash('sha256').update(body).digest('hex') };
        },
      },
      sources: new ExportSources(sourcePorts),
      events: this.events,
      writer,
      slots: this.slots,
      continueLater: async (message) => void this.handOffs.push(message),
      retryLater: async (message, delaySeconds) => void this.retries.push({ message, delaySeconds }),
      ...overrides,
    };
  }

  processor(overrides: Partial<ExportProcessPorts<MemoryWrite>> = {}): ExportProcessor<MemoryWrite> {
    return new ExportProcessor(this.ports(overrides));
  }
}
