import { ApiError } from '../errors.ts';
import type { EventDraft } from '../events/types.ts';
import { naturalKeyOf, newRecordId, type InventoryRecords, type VersionedRecord } from '../inventory/records.ts';
import type { CommandWriter, WriteContext } from '../write/ports.ts';
import { readCsv } from './csv-reader.ts';
import { finalStatus, isFinished, type ImportJobState, type JobCounts, type JobFailure, type ColumnWarning, type JobStatus } from './job.ts';
import type { AnyImportKind, ImportEntity, ImportUnit, RecordWrite } from './kind-definition.ts';
import { importKind } from './kinds.ts';
import type { RowAction, RowError } from './types.ts';
import { loadAncestry, type Hierarchy } from '../inventory/hierarchy.ts';
import { keysToLoad, parseRows, validateRows, type ParsedRow } from './validate-file.ts';

/**
 * Processing one import job (docs/imports.md "Guarantees"; bulk writes:
 * docs/architecture.md "The write path"): validate every row first, then apply the valid rows
 * in chunks, each chunk ONE transaction with its records, its events and the job's checkpoint.
 * The checkpoint's condition makes every chunk apply exactly once, so a redelivered or resumed
 * message neither duplicates nor loses rows. Near the time limit the worker hands the rest of
 * the job to a fresh message instead of racing the clock.
 */

export interface ProcessPorts<Write = unknown> {
  jobs: {
    get(organizationId: string, jobId: string): Promise<ImportJobState | undefined>;
    start(job: ImportJobState, totals: { totalRows: number; failedRows: number; warnings: ColumnWarning[] }, now: string): Promise<ImportJobState>;
    putRowErrors(organizationId: string, jobId: string, errors: RowError[]): Promise<void>;
    /** Row numbers that already have stored errors (the first run's verdict, on resume). */
    rowsWithErrors(organizationId: string, jobId: string): Promise<Set<number>>;
    rowErrorWrite(organizationId: string, jobId: string, error: RowError, index?: number): Write;
    checkpointWrite(job: ImportJobState, from: number, to: number, delta: Partial<JobCounts>): Write;
    finishWrite(job: ImportJobState, status: JobStatus, failure: JobFailure | null, now: string): Write;
  };
  files: { read(key: string): Promise<Buffer> };
  records: Pick<InventoryRecords<Write>, 'getByNaturalKeys' | 'createWrites' | 'updateWrite' | 'movementWrite'>;
  writer: CommandWriter<Write>;
  /** Hands the rest of a job to a new message. */
  continueLater(message: { organizationId: string; jobId: string }): Promise<void>;
  /** Splits units into transactions (the store knows the size limit). */
  planChunks<U extends { writes: Write[]; events: EventDraft[] }>(units: U[]): U[][];
  clock?: () => Date;
  /** The registry of kinds (default: the registered kinds of kinds.ts). */
  kinds?: (name: string) => AnyImportKind | undefined;
}

export type ProcessOutcome = 'finished' | 'already-finished' | 'missing' | 'continued' | 'taken-over';

/** A unit ready to commit: its position (first row), how many rows it counts for, and its writes. */
interface Unit<Write> {
  rowNumber: number;
  rowCount: number;
  writes: Write[];
  events: EventDraft[];
  action: RowAction | 'failed';
  /** The rows it was decided from (absent for a row error), to decide again on a conflict. */
  source?: ImportUnit<unknown>;
}

/** What deciding a unit reads: the kind, the loaded records and the location tree so far. */
interface DecisionState {
  kind: AnyImportKind;
  existing: Map<string, VersionedRecord<unknown>>;
  loaded: Map<ImportEntity, Map<string, VersionedRecord<unknown>>>;
  hierarchy: Hierarchy | undefined;
}

/** How often one chunk is decided again against fresh records after another writer changed them. */
const MAX_CHUNK_REDECISIONS = 5;

/** Another writer (e.g. a concurrent job) changed or created a record this chunk decided on. */
function isRecordConflict(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409;
}

/** At most this many errors of one row are written by a chunk (each is one transaction action). */
const MAX_ERRORS_PER_ROW_IN_CHUNK = 3;

function groupByRow(errors: RowError[]): Map<number, RowError[]> {
  const byRow = new Map<number, RowError[]>();
  for (const error of errors) byRow.set(error.rowNumber, [...(byRow.get(error.rowNumber) ?? []), error]);
  return byRow;
}

/** Stop starting chunks when less than this is left of the invocation. */
export const TIME_MARGIN_MS = 10_000;

const SYSTEM_ACTOR = { type: 'system' as const, id: 'import-worker' };

export class ImportJobProcessor<Write = unknown> {
  constructor(private readonly ports: ProcessPorts<Write>) {}

  private now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }

  async process(organizationId: string, jobId: string, remainingMs: () => number): Promise<ProcessOutcome> {
    let job = await this.ports.jobs.get(organizationId, jobId);
    if (!job) return 'missing';
    if (isFinished(job.status)) return 'already-finished';
    const kind = (this.ports.kinds ?? importKind)(job.kind);
    if (!kind) return this.fail(job, { code: 'unknown-kind', message: `The import kind '${job.kind}' no longer exists.` });

    const csv = readCsv(await this.ports.files.read(job.fileKey), kind);
    if (!csv.ok) return this.fail(job, csv.failure);
    const parsed = parseRows(kind, csv);
    const loaded = await this.loadKeys(organizationId, kind, parsed.parsed, job.checkpoint);
    const validated = validateRows(kind, parsed, (entity, keys) => new Set(keys.filter((key) => loaded.get(entity)?.has(key))));

    // The file's verdict is taken once, when the job starts. A resumed run keeps it: its own
    // earlier chunks changed the tenant's data, and re-judging rows against that would move rows
    // between "invalid" and "to apply" (counting them twice).
    let rowsWithErrors: Set<number>;
    if (job.status === 'queued') {
      await this.ports.jobs.putRowErrors(organizationId, jobId, validated.errors);
      rowsWithErrors = new Set(validated.errors.map((error) => error.rowNumber));
      job = await this.ports.jobs.start(
        job,
        { totalRows: csv.rows.length + new Set(csv.rowErrors.map((error) => error.rowNumber)).size, failedRows: rowsWithErrors.size, warnings: csv.warnings },
        this.now(),
      );
    } else {
      rowsWithErrors = await this.ports.jobs.rowsWithErrors(organizationId, jobId);
    }

    const existing = loaded.get(kind.entity) ?? new Map<string, VersionedRecord<unknown>>();
    const hierarchy = await this.hierarchyOf(organizationId, kind, existing);
    const started = job;
    const currentErrors = groupByRow(validated.errors);
    // Rows judged invalid when the job started were counted then; everything else is pending
    // from the checkpoint on. A row valid at the start but not now (the tenant's data changed)
    // is a row error now.
    const pending = [
      ...unitsOf(kind, validated.valid, parsed.groupOfRow).map((unit) => ({ position: unit.rowNumbers[0] ?? 0, unit })),
      ...[...currentErrors.keys()].map((rowNumber) => ({ position: rowNumber, unit: undefined })),
    ]
      .filter(({ position }) => position > started.checkpoint && !rowsWithErrors.has(position))
      .sort((a, b) => a.position - b.position);
    const units = pending.map(({ position, unit }) =>
      unit === undefined ? this.failedUnit(started, currentErrors.get(position) ?? []) : this.decide(started, kind, unit, existing, loaded, hierarchy),
    );
    let checkpoint = job.checkpoint;
    const context: WriteContext = { organizationId, actor: SYSTEM_ACTOR, traceId: null };
    for (const chunk of this.ports.planChunks(units)) {
      if (remainingMs() < TIME_MARGIN_MS) {
        await this.ports.continueLater({ organizationId, jobId });
        return 'continued';
      }
      const to = chunk.at(-1)?.rowNumber ?? checkpoint;
      const committed = await this.commitChunk(context, started, chunk, { from: checkpoint, to }, { kind, existing, loaded, hierarchy });
      // Another delivery of this job moved the checkpoint: it carries on, this one stops.
      if (!committed) return 'taken-over';
      checkpoint = to;
    }
    return this.finish(job);
  }

  /**
   * Commits one chunk with the job's checkpoint moving `from` → `to`; false when another delivery
   * already moved it. When another writer changed a record since it was read (a concurrent job
   * on the same skus), the chunk's rows are decided again against fresh records and committed.
   */
  private async commitChunk(
    context: WriteContext,
    job: ImportJobState,
    chunk: Unit<Write>[],
    span: { from: number; to: number },
    state: DecisionState,
  ): Promise<boolean> {
    let attempt = chunk;
    for (let redecisions = 0; ; redecisions += 1) {
      const units = attempt;
      try {
        await this.ports.writer.run(context, async () => ({
          // The checkpoint first: when another delivery moved it, its condition is the failure reported.
          writes: [this.ports.jobs.checkpointWrite(job, span.from, span.to, countsOf(units)), ...units.flatMap((unit) => unit.writes)],
          events: units.flatMap((unit) => unit.events),
          result: undefined,
        }));
        return true;
      } catch (error) {
        if ((error as Error).name === 'ChunkAlreadyAppliedError') return false;
        if (!isRecordConflict(error) || redecisions >= MAX_CHUNK_REDECISIONS) throw error;
        const { kind, existing, loaded, hierarchy } = state;
        attempt = await this.decideAgain(job, kind, units, existing, loaded, hierarchy);
      }
    }
  }

  private async loadKeys(organizationId: string, kind: AnyImportKind, parsed: Parameters<typeof keysToLoad>[1], appliedThrough: number) {
    const loaded = new Map<ImportEntity, Map<string, VersionedRecord<unknown>>>();
    for (const [entity, keys] of keysToLoad(kind, parsed, appliedThrough)) loaded.set(entity, await this.ports.records.getByNaturalKeys(organizationId, entity, keys));
    return loaded;
  }

  /** For tree-shaped kinds: the parent links of the tenant's records, ancestors included. */
  private async hierarchyOf(organizationId: string, kind: AnyImportKind, existing: Map<string, VersionedRecord<unknown>>): Promise<Hierarchy | undefined> {
    const { parentKeyOf } = kind;
    if (!parentKeyOf) return undefined;
    const known = new Map([...existing].map(([key, { record }]) => [key, parentKeyOf(record)]));
    return loadAncestry(known, async (keys) => {
      const records = await this.ports.records.getByNaturalKeys(organizationId, kind.entity, keys);
      return new Map([...records].map(([key, { record }]) => [key, parentKeyOf(record)]));
    });
  }

  private decide(
    job: ImportJobState,
    kind: AnyImportKind,
    unit: ImportUnit<unknown>,
    existing: Map<string, VersionedRecord<unknown>>,
    loaded: Map<ImportEntity, Map<string, VersionedRecord<unknown>>>,
    hierarchy: Hierarchy | undefined,
  ): Unit<Write> {
    const rowNumber = unit.rowNumbers[0] ?? 0;
    const naturalKey = kind.naturalKeyOf(unit.rows[0]);
    const decision = kind.decideUnit(unit, existing.get(naturalKey), job.duplicateStrategy, {
      now: this.now(),
      newId: () => newRecordId(kind.entity),
      rowNumber,
      // The map per entity holds that entity's records (loaded by getByNaturalKeys for it), which
      // the generic signature cannot see.
      resolve: (entity, key) => loaded.get(entity)?.get(key) as never,
    });
    if (decision.action === 'failed') return this.failedUnit(job, unit.rowNumbers.map((number) => ({ ...decision.error, rowNumber: number })));
    if (decision.action === 'skipped') return { rowNumber, rowCount: unit.rowNumbers.length, writes: [], events: [], action: 'skipped', source: unit };
    const cycle = hierarchy && this.cycleOf(kind, decision.writes, hierarchy);
    if (cycle) return this.failedUnit(job, unit.rowNumbers.map((number) => ({ ...cycle, rowNumber: number })));
    return { rowNumber, rowCount: unit.rowNumbers.length, writes: this.storeWrites(job.organizationId, decision.writes), events: decision.events, action: decision.action, source: unit };
  }

  /** The chunk's units decided again after re-reading the records they name. */
  private async decideAgain(
    job: ImportJobState,
    kind: AnyImportKind,
    chunk: Unit<Write>[],
    existing: Map<string, VersionedRecord<unknown>>,
    loaded: Map<ImportEntity, Map<string, VersionedRecord<unknown>>>,
    hierarchy: Hierarchy | undefined,
  ): Promise<Unit<Write>[]> {
    const keys = chunk.flatMap((unit) => (unit.source ? [kind.naturalKeyOf(unit.source.rows[0])] : []));
    const fresh = await this.ports.records.getByNaturalKeys(job.organizationId, kind.entity, keys);
    for (const key of keys) {
      const record = fresh.get(key);
      if (record) existing.set(key, record);
      else existing.delete(key);
    }
    return chunk.map((unit) => (unit.source ? this.decide(job, kind, unit.source, existing, loaded, hierarchy) : unit));
  }

  /** For tree-shaped kinds: the row error of a write that would make a record its own ancestor. */
  private cycleOf(kind: AnyImportKind, writes: RecordWrite[], hierarchy: Hierarchy): RowError | undefined {
    const { parentKeyOf } = kind;
    if (!parentKeyOf) return undefined;
    for (const write of writes) {
      if (write.op === 'append-movement' || write.entity !== kind.entity) continue;
      const key = naturalKeyOf(write.entity, write.record);
      const parent = parentKeyOf(write.record);
      if (hierarchy.wouldCycle(key, parent)) {
        const column = kind.parentColumn ?? 'parent';
        return { rowNumber: 0, column, value: parent, code: 'invalid-value', message: `${column} '${parent}' would make '${key}' its own ancestor.` };
      }
      hierarchy.set(key, parent);
    }
    return undefined;
  }

  private storeWrites(organizationId: string, writes: RecordWrite[]): Write[] {
    return writes.flatMap((write) => {
      switch (write.op) {
        case 'create':
          return this.ports.records.createWrites(organizationId, write.entity, write.record);
        case 'update':
          return [this.ports.records.updateWrite(organizationId, write.entity, write.record, write.expectedVersion)];
        case 'append-movement':
          return [this.ports.records.movementWrite(organizationId, write.movement)];
      }
    });
  }

  private failedUnit(job: ImportJobState, errors: RowError[]): Unit<Write> {
    const rowNumber = errors[0]?.rowNumber ?? 0;
    const writes = errors.slice(0, MAX_ERRORS_PER_ROW_IN_CHUNK).map((error, index) => this.ports.jobs.rowErrorWrite(job.organizationId, job.id, error, index));
    return { rowNumber, rowCount: new Set(errors.map((error) => error.rowNumber)).size || 1, writes, events: [], action: 'failed' };
  }

  private async finish(job: ImportJobState): Promise<ProcessOutcome> {
    const latest = (await this.ports.jobs.get(job.organizationId, job.id)) ?? job;
    await endJob(this.ports, latest, finalStatus(latest.counts), null, this.now());
    return 'finished';
  }

  async fail(job: ImportJobState, failure: JobFailure): Promise<ProcessOutcome> {
    await endJob(this.ports, job, 'failed', failure, this.now());
    return 'finished';
  }
}

/**
 * Ends a job with its final status and audit entry (`import.completed` / `import.failed`) in one
 * transaction; a job another delivery already ended is left as it is.
 */
export async function endJob<Write>(
  ports: { jobs: Pick<ProcessPorts<Write>['jobs'], 'finishWrite'>; writer: CommandWriter<Write> },
  job: ImportJobState,
  status: JobStatus,
  failure: JobFailure | null,
  now: string,
): Promise<void> {
  const summary =
    status === 'failed' ? `Import ${job.id} failed: ${failure?.code ?? 'unknown'}` : `Import ${job.id} ${status}: ${describeCounts(job.counts)}`;
  try {
    await ports.writer.run({ organizationId: job.organizationId, actor: SYSTEM_ACTOR, traceId: null }, async () => ({
      writes: [ports.jobs.finishWrite(job, status, failure, now)],
      audit: {
        kind: status === 'failed' ? ('import.failed' as const) : ('import.completed' as const),
        target: { kind: 'import-job', id: job.id },
        summary,
        changes: [{ field: 'status', from: job.status, to: status }],
      },
      events: [],
      result: undefined,
    }));
  } catch (error) {
    // Finished by another delivery in the meantime: nothing left to do.
    if ((error as Error).name !== 'ChunkAlreadyAppliedError') throw error;
  }
}

function countsOf<Write>(chunk: Unit<Write>[]): Partial<JobCounts> {
  const delta: Partial<JobCounts> = { processedRows: 0 };
  for (const unit of chunk) {
    delta.processedRows = (delta.processedRows ?? 0) + unit.rowCount;
    delta[unit.action] = (delta[unit.action] ?? 0) + unit.rowCount;
  }
  return delta;
}

/**
 * The units of the valid rows, ordered by their first row: one per row, or for a grouping kind
 * one per group key with its rows in file order.
 */
export function unitsOf<Row>(kind: { groupKeyOf?: unknown }, valid: readonly ParsedRow<Row>[], groupOfRow: ReadonlyMap<number, string>): ImportUnit<Row>[] {
  if (!kind.groupKeyOf) return valid.map(({ rowNumber, row }) => ({ rowNumbers: [rowNumber], rows: [row] }));
  const groups = new Map<string, ImportUnit<Row>>();
  for (const { rowNumber, row } of valid) {
    const key = groupOfRow.get(rowNumber) ?? '';
    const unit = groups.get(key) ?? { rowNumbers: [], rows: [] };
    unit.rowNumbers.push(rowNumber);
    unit.rows.push(row);
    groups.set(key, unit);
  }
  return [...groups.values()];
}

function describeCounts(counts: JobCounts): string {
  return `${counts.created} created, ${counts.updated} updated, ${counts.skipped} skipped, ${counts.failed} failed of ${counts.totalRows}`;
}
