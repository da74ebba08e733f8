import type { ChunkProgress, ImportJobState, JobCounts } from '../../lib/imports/domain/job.ts';
import type { AnyImportKind } from '../../lib/imports/domain/kind-definition.ts';
import type { ProcessPorts } from '../../lib/imports/domain/pipeline/ports.ts';
import type { RowError } from '../../lib/imports/domain/types.ts';
import type { VersionedRecord } from '../../lib/inventory/domain/records.ts';
import type { MovementRecord } from '../../lib/inventory/domain/stock.ts';

/**
 * In-memory ports for ImportJobProcessor (unit tests of the pipeline itself; the stores behind
 * the real ports have their own suites against DynamoDB Local). The writer applies a plan
 * atomically, and the checkpoint write keeps the store's condition: a chunk commits only from
 * the checkpoint the job is at.
 */

export const HARNESS_NOW = '2026-11-22T10:00:00.000Z';

interface KeyedRecord {
  id: string;
}

export type FakeWrite<Rec extends KeyedRecord = KeyedRecord> =
  | { kind: 'record'; op: 'create' | 'update'; key: string; record: Rec }
  | { kind: 'movement'; movement: MovementRecord }
  | { kind: 'checkpoint'; from: number; to: number; progress: ChunkProgress }
  | { kind: 'row-error'; error: RowError; index: number }
  | { kind: 'finish'; status: ImportJobState['status']; failure: ImportJobState['failure'] };

export interface HarnessOptions<Rec extends KeyedRecord> {
  kind: AnyImportKind;
  file: string;
  /** The natural key of a stored record (the harness keeps records by it). */
  keyOf: (record: Rec) => string;
  existing?: Rec[];
  chunkActions?: number;
}

export function importHarness<Rec extends KeyedRecord>(options: HarnessOptions<Rec>) {
  const { kind, file, keyOf } = options;
  let job: ImportJobState = {
    id: 'imp_1',
    organizationId: 'org_1',
    kind: kind.kind,
    duplicateStrategy: 'fail',
    status: 'queued',
    fileName: 'f.csv',
    fileSizeBytes: file.length,
    fileSha256: 'x',
    fileKey: 'k',
    submittedAt: HARNESS_NOW,
    startedAt: null,
    completedAt: null,
    failure: null,
    warnings: [],
    checkpoint: 0,
    counts: { totalRows: 0, processedRows: 0, created: 0, updated: 0, skipped: 0, failed: 0 },
  };
  const stored = new Map<string, VersionedRecord<Rec>>((options.existing ?? []).map((record) => [keyOf(record), { record, version: 1 }]));
  const movements: MovementRecord[] = [];
  const rowErrors: Array<RowError & { index: number }> = [];
  const transactions: FakeWrite<Rec>[][] = [];
  const handoffs: Array<{ handoffsWithoutProgress?: number }> = [];
  const faults = { failNextCommit: undefined as Error | undefined };

  function commit(writes: FakeWrite<Rec>[]): void {
    const checkpoint = writes.find((write) => write.kind === 'checkpoint');
    if (checkpoint && (checkpoint.from !== job.checkpoint || job.status !== 'processing')) {
      throw Object.assign(new Error(`Job is no longer at checkpoint ${checkpoint.from}`), { name: 'ChunkAlreadyAppliedError' });
    }
    const finish = writes.find((write) => write.kind === 'finish');
    if (finish && !['queued', 'processing'].includes(job.status)) throw Object.assign(new Error('finished'), { name: 'ChunkAlreadyAppliedError' });
    transactions.push(writes);
    for (const write of writes) {
      if (write.kind === 'record') stored.set(write.key, { record: write.record, version: (stored.get(write.key)?.version ?? 0) + 1 });
      if (write.kind === 'movement') movements.push(write.movement);
      if (write.kind === 'row-error') rowErrors.push({ ...write.error, index: write.index });
      if (write.kind === 'checkpoint') {
        const counts = { ...job.counts };
        for (const [field, amount] of Object.entries(write.progress.counts)) counts[field as keyof JobCounts] += amount ?? 0;
        job = {
          ...job,
          checkpoint: write.to,
          counts,
          storedErrors: (job.storedErrors ?? 0) + write.progress.storedErrors,
          unstoredErrors: (job.unstoredErrors ?? 0) + write.progress.unstoredErrors,
        };
      }
      if (write.kind === 'finish') job = { ...job, status: write.status, failure: write.failure, completedAt: HARNESS_NOW };
    }
  }

  const ports: ProcessPorts<FakeWrite<Rec>> = {
    kinds: (name) => (name === kind.kind ? kind : undefined),
    jobs: {
      get: async () => job,
      start: async (current, totals) => {
        if (job.status !== 'queued') return job;
        job = {
          ...current,
          status: 'processing',
          startedAt: HARNESS_NOW,
          warnings: totals.warnings,
          counts: { ...current.counts, totalRows: totals.totalRows },
          storedErrors: 0,
          unstoredErrors: 0,
        };
        return job;
      },
      rowErrorWrite: (_job, error, index) => ({ kind: 'row-error', error, index }),
      checkpointWrite: (_job, from, to, progress) => ({ kind: 'checkpoint', from, to, progress }),
      finishWrite: (_job, status, failure) => ({ kind: 'finish', status, failure }),
    },
    files: {
      open: async () =>
        (async function* () {
          yield Buffer.from(file);
        })(),
    },
    records: {
      // The port's generic record type cannot be narrowed to this harness's Rec.
      getByNaturalKeys: async (_org, _type, keys) => new Map([...keys].flatMap((key) => (stored.has(key) ? [[key, stored.get(key)!]] : []))) as never,
      getItemsByIds: async () => new Map(),
      stockRecordsAt: async () => [],
      writesOf: (_org, write): FakeWrite<Rec>[] => {
        switch (write.op) {
          case 'create':
          case 'update':
            return [{ kind: 'record', op: write.op, key: keyOf(write.record as unknown as Rec), record: write.record as unknown as Rec }];
          case 'record-movement':
            return [{ kind: 'movement', movement: write.movement }];
          case 'check':
            // The harness keeps no versions to check.
            return [];
          default:
            throw new Error(`The harness stores no ${write.op}`);
        }
      },
    },
    writer: {
      async run(_context, build) {
        const plan = await build();
        const fault = faults.failNextCommit;
        if (fault) {
          faults.failNextCommit = undefined;
          throw fault;
        }
        commit(plan.writes);
        return { result: plan.result, events: [], attempts: 1 };
      },
    },
    continueLater: async (message) => void handoffs.push(message),
    chunkActions: options.chunkActions ?? 98,
    clock: () => new Date(HARNESS_NOW),
  };
  return {
    ports,
    stored,
    movements,
    rowErrors,
    transactions,
    handoffs,
    faults,
    job: () => job,
    setJob: (next: ImportJobState) => void (job = next),
    checkpoints: () => transactions.flatMap((writes) => writes.filter((write) => write.kind === 'checkpoint')),
  };
}
