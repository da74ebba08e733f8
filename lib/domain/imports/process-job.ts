import { ApiError } from '../errors.ts';
import type { EventDraft } from '../events/types.ts';
import { naturalKeyOf, newRecordId, type VersionedRecord } from '../inventory/records.ts';
import type { Item } from '../inventory/item.ts';
import { newId } from '../ids.ts';
import { StockLedger } from '../stock/ledger.ts';
import { documentKey } from '../stock/records.ts';
import { StockState } from './stock-state.ts';
import type { CommandWriter, WriteContext } from '../write/ports.ts';
import { readCsv } from './csv-reader.ts';
import { finalStatus, isFinished, MAX_STORED_ROW_ERRORS, type ChunkProgress, type ImportJobState, type JobFailure, type ColumnWarning, type JobStatus, type JobCounts } from './job.ts';
import { newKindRecordId, type AnyImportKind, type ImportRecords, type ImportUnit, type RecordWrite, type ReferenceEntity } from './kind-definition.ts';
import { importKind } from './kinds.ts';
import type { RowAction, RowError } from './types.ts';
import { Hierarchy } from '../inventory/hierarchy.ts';
import { referencedKeys, parseRows, validateRows, type ParsedRow } from './validate-file.ts';

/**
 * Processing one import job (docs/imports.md "Guarantees"; bulk writes:
 * docs/architecture.md "The write path"): read and validate the whole file first, then handle
 * the rows in file order, in chunks. Each chunk is ONE transaction with its records, its events,
 * its rows' verdicts (the stored row errors) and the job's checkpoint and counts. The
 * checkpoint's condition makes every chunk commit exactly once, so a row is counted, applied or
 * listed as an error exactly once however often its message is delivered. The time left is
 * checked before every phase and every chunk; short of time, the worker hands the rest of the
 * job to a fresh message instead of racing the clock.
 */

export interface ProcessPorts<Write = unknown> {
  jobs: {
    get(organizationId: string, jobId: string): Promise<ImportJobState | undefined>;
    start(job: ImportJobState, totals: { totalRows: number; warnings: ColumnWarning[] }, now: string): Promise<ImportJobState>;
    rowErrorWrite(job: Pick<ImportJobState, 'organizationId' | 'id' | 'submittedAt'>, error: RowError, index: number): Write;
    checkpointWrite(job: ImportJobState, from: number, to: number, progress: ChunkProgress): Write;
    finishWrite(job: ImportJobState, status: JobStatus, failure: JobFailure | null, now: string): Write;
  };
  /** The uploaded file, as a stream of chunks. */
  files: { open(key: string): Promise<AsyncIterable<Uint8Array>> };
  records: ImportRecords<Write>;
  writer: CommandWriter<Write>;
  /** Hands the rest of a job to a new message. */
  continueLater(message: JobHandoff): Promise<void>;
  /** Actions one chunk's rows may use: the store's transaction limit less what the writer and the checkpoint take. */
  chunkActions: number;
  /**
   * Bytes one chunk's writes and events may add up to (the store's transaction size limit less a
   * margin), measured by `writeBytes`; without them only actions are counted.
   */
  chunkBytes?: number;
  writeBytes?: (write: Write) => number;
  clock?: () => Date;
  /** The registry of kinds (default: the registered kinds of kinds.ts). */
  kinds?: (name: string) => AnyImportKind | undefined;
  /**
   * Told once per job, by the delivery whose transaction ended it, with its final state (e.g. to
   * count its rows); a delivery that finds the job already ended is not told.
   */
  onEnded?: (job: ImportJobState, status: JobStatus) => void;
}

/** A job handed to a new message, with how many invocations in a row it has made no progress in. */
export interface JobHandoff {
  organizationId: string;
  jobId: string;
  handoffsWithoutProgress?: number;
}

export type ProcessOutcome = 'finished' | 'already-finished' | 'missing' | 'continued' | 'taken-over';

export { MAX_STORED_ROW_ERRORS };

/** At most this many errors of one unit (a row, or a group of rows) are stored. */
const MAX_STORED_ERRORS_PER_UNIT = 50;
/** Natural keys read per batch while deciding rows (one BatchGetItem). */
const KEYS_PER_LOAD = 100;
/** Referenced keys read between two looks at the clock. */
const REFERENCES_PER_SLICE = 1000;
/** A job that makes no progress in this many invocations in a row fails instead of looping. */
export const MAX_HANDOFFS_WITHOUT_PROGRESS = 3;

/** A unit ready to commit: its position (first row), how many rows it counts for, and its writes. */
interface Unit<Write> {
  rowNumber: number;
  rowCount: number;
  writes: Write[];
  events: EventDraft[];
  action: RowAction | 'failed';
  storedErrors: number;
  unstoredErrors: number;
}

/** A row, or group of rows, after the checkpoint: valid rows to decide, or a validation verdict. */
interface Pending {
  position: number;
  unit?: ImportUnit<unknown>;
  errors?: RowError[];
}

/** What one run of a job reads and keeps while it handles the pending rows. */
interface RunState {
  job: ImportJobState;
  kind: AnyImportKind;
  pending: Pending[];
  /** Records of the job's kind by natural key, read lazily ahead of the chunk being built. */
  existing: Map<string, VersionedRecord<unknown>>;
  loadedKeys: Set<string>;
  /** Referenced records per entity, read once before validation. */
  references: Map<ReferenceEntity, Map<string, VersionedRecord<unknown>>>;
  /** For kinds that move stock: the stock read so far, and how far ahead of the chunk it was read. */
  stock?: StockState;
  stockReadThrough: number;
  /** For kinds with receipts or counts: the reference of the document whose last row in the file is at a position. */
  documentEnds: Map<number, string>;
  hierarchy: Hierarchy | undefined;
  checkpoint: number;
  storedErrors: number;
  hasTime: () => boolean;
}

/**
 * How often one chunk is decided again against fresh records after another writer changed them
 * (a busy stock record can take many); between attempts the worker waits a random while.
 */
const MAX_CHUNK_REDECISIONS = 50;
const REDECISION_PAUSE_MS = 50;

/** Another writer (e.g. a concurrent job) changed or created a record this chunk decided on. */
function isRecordConflict(error: unknown): boolean {
  return error instanceof ApiError && error.status === 409;
}

function groupByRow(errors: RowError[]): Map<number, RowError[]> {
  const byRow = new Map<number, RowError[]>();
  for (const error of errors) byRow.set(error.rowNumber, [...(byRow.get(error.rowNumber) ?? []), error]);
  return byRow;
}

/** Stop starting a phase or a chunk when less than this is left of the invocation. */
export const TIME_MARGIN_MS = 10_000;
/** An invocation that starts with less than this left is not counted as one without progress. */
export const MIN_FAIR_RUN_MS = 40_000;

const SYSTEM_ACTOR = { type: 'system' as const, id: 'import-worker' };

export class ImportJobProcessor<Write = unknown> {
  constructor(private readonly ports: ProcessPorts<Write>) {}

  private now(): string {
    return (this.ports.clock?.() ?? new Date()).toISOString();
  }

  /**
   * Handles the job from its checkpoint on. `handoffs` is how many invocations in a row have
   * handed this job on without progress.
   */
  async process(organizationId: string, jobId: string, remainingMs: () => number, handoffs = 0): Promise<ProcessOutcome> {
    let job = await this.ports.jobs.get(organizationId, jobId);
    if (!job) return 'missing';
    if (isFinished(job.status)) return 'already-finished';
    const kind = (this.ports.kinds ?? importKind)(job.kind);
    if (!kind) return this.fail(job, { code: 'unknown-kind', message: `The import kind '${job.kind}' no longer exists.` });
    const hasTime = () => remainingMs() >= TIME_MARGIN_MS;
    // Only an invocation that had a fair share of time counts as one without progress: a message
    // picked up late in a busy batch is handed on without holding that against the job.
    const fairRun = remainingMs() >= MIN_FAIR_RUN_MS;
    const stalled = () => this.handOff(job ?? undefined, fairRun ? handoffs + 1 : handoffs);

    const csv = await readCsv(await this.ports.files.open(job.fileKey), kind);
    if (!csv.ok) return this.fail(job, csv.failure);
    if (!hasTime()) return stalled();
    const parsed = parseRows(kind, csv);
    const references = await this.loadReferences(organizationId, kind, parsed.parsed, hasTime);
    if (!references || !hasTime()) return stalled();
    // Rows up to the checkpoint were applied (or failed) already: what they created is tenant data now.
    const known = (entity: ReferenceEntity, keys: readonly string[]) => new Set(keys.filter((key) => references.get(entity)?.has(key)));
    const validated = validateRows(kind, parsed, known, job.checkpoint);
    if (!hasTime()) return stalled();

    if (job.status === 'queued') {
      const totalRows = csv.rows.length + new Set(csv.rowErrors.map((error) => error.rowNumber)).size;
      job = await this.ports.jobs.start(job, { totalRows, warnings: csv.warnings }, this.now());
    }
    const started = job;
    const errorsByRow = groupByRow(validated.errors);
    const pending: Pending[] = [
      ...unitsOf(kind, validated.valid, parsed.groupOfRow).map((unit) => ({ position: unit.rowNumbers[0] ?? 0, unit })),
      ...[...errorsByRow].map(([position, errors]) => ({ position, errors })),
    ]
      .filter(({ position }) => position > started.checkpoint)
      .sort((a, b) => a.position - b.position);
    const run: RunState = {
      job: started,
      kind,
      pending,
      existing: new Map(),
      loadedKeys: new Set(),
      references,
      hierarchy: await this.hierarchyOf(organizationId, kind, references),
      ...(kind.stock ? { stock: new StockState(this.ports.records, organizationId, [...(references.get('item')?.values() ?? [])].map(({ record }) => record as Item)) } : {}),
      stockReadThrough: 0,
      documentEnds: documentEndsOf(kind, csv.rows),
      checkpoint: started.checkpoint,
      storedErrors: started.storedErrors ?? 0,
      hasTime,
    };
    const context: WriteContext = { organizationId, actor: SYSTEM_ACTOR, traceId: null };
    let progressed = false;
    for (let index = 0; index < pending.length; ) {
      if (!hasTime()) return progressed ? this.handOff(started, 0) : stalled();
      const committed = await this.commitNextChunk(context, run, index);
      // Another delivery of this job moved the checkpoint: it carries on, this one stops.
      if (committed === undefined) return 'taken-over';
      // Out of time while reading ahead, before a single unit was ready.
      if (committed === 0) continue;
      index += committed;
      progressed = true;
    }
    return this.finish(started);
  }

  /** The rest of the job goes to a new message; a job that keeps making no progress fails instead. */
  private async handOff(job: ImportJobState | undefined, handoffsWithoutProgress: number): Promise<ProcessOutcome> {
    if (!job) return 'missing';
    if (handoffsWithoutProgress >= MAX_HANDOFFS_WITHOUT_PROGRESS) {
      return this.fail(job, {
        code: 'processing-timeout',
        message: `The file could not be processed within ${MAX_HANDOFFS_WITHOUT_PROGRESS} worker invocations without progress. Split it into smaller files, or contact support with the job id.`,
      });
    }
    await this.ports.continueLater({ organizationId: job.organizationId, jobId: job.id, handoffsWithoutProgress });
    return 'continued';
  }

  /**
   * Builds the chunk that starts at `pending[from]`, commits it with the job's checkpoint moving
   * to its last row, and returns how many pending entries it covered (0: out of time before any
   * was ready; undefined: another delivery had already moved the checkpoint). When another
   * writer changed a record since it was read (a concurrent job on the same skus), the chunk's
   * records are read again and the chunk is built again from them.
   */
  private async commitNextChunk(context: WriteContext, run: RunState, from: number): Promise<number | undefined> {
    for (let redecisions = 0; ; redecisions += 1) {
      const ledger = run.stock && new StockLedger(run.stock, { stockRecord: () => newRecordId('stock-record'), movement: () => newId('mov') });
      const units = await this.buildChunk(run, from, ledger);
      if (units.length === 0) return 0;
      const to = units.at(-1)?.rowNumber ?? run.checkpoint;
      const progress = progressOf(units);
      // Each stock record, item total and document the chunk changed, written once.
      const stockWrites = ledger ? this.storeWrites(run.job.organizationId, ledger.flush()) : [];
      try {
        await this.ports.writer.run(context, async () => ({
          // The checkpoint first: when another delivery moved it, its condition is the failure reported.
          writes: [this.ports.jobs.checkpointWrite(run.job, run.checkpoint, to, progress), ...units.flatMap((unit) => unit.writes), ...stockWrites],
          events: units.flatMap((unit) => unit.events),
          result: undefined,
        }));
        run.checkpoint = to;
        run.storedErrors += progress.storedErrors;
        if (ledger) run.stock?.advance(ledger);
        return units.length;
      } catch (error) {
        if ((error as Error).name === 'ChunkAlreadyAppliedError') return undefined;
        if (!isRecordConflict(error)) throw error;
        // A conflict is never a failure: after many in a row, the caller looks at the clock and
        // tries again or hands the job on.
        if (!run.hasTime() || redecisions >= MAX_CHUNK_REDECISIONS) return 0;
        await new Promise((resolve) => setTimeout(resolve, Math.random() * REDECISION_PAUSE_MS * Math.min(redecisions + 1, 8)));
        run.stock?.forget();
        run.stockReadThrough = from;
        await this.reloadRecords(run, run.pending.slice(from, from + units.length));
      }
    }
  }

  /**
   * Decides pending entries from `from` on while their writes fit one transaction. Records are
   * read ahead as needed, a batch of keys at a time; the clock is checked before each read.
   */
  private async buildChunk(run: RunState, from: number, ledger?: StockLedger): Promise<Unit<Write>[]> {
    const units: Unit<Write>[] = [];
    let actions = 0;
    let bytes = 0;
    let stored = run.storedErrors;
    const { chunkBytes, writeBytes, chunkActions } = this.ports;
    const bytesOf = (unit: Unit<Write>) =>
      writeBytes ? unit.writes.reduce((sum, write) => sum + writeBytes(write), 0) + unit.events.reduce((sum, event) => sum + JSON.stringify(event).length, 0) : 0;
    for (let index = from; index < run.pending.length; index += 1) {
      const entry = run.pending[index] as Pending;
      if (entry.unit && !run.loadedKeys.has(run.kind.naturalKeyOf(entry.unit.rows[0]))) {
        if (!run.hasTime()) break;
        await this.loadAhead(run, index);
      }
      if (run.stock && index >= run.stockReadThrough) {
        if (!run.hasTime()) break;
        await this.readStockAhead(run, index);
      }
      const room = Math.max(0, MAX_STORED_ROW_ERRORS - stored);
      // Coalesced stock writes the chunk already has; a unit adds to them only what it changes first.
      const stockBefore = ledger?.pendingActions() ?? 0;
      let unit = await this.decideEntry(run, entry, room, ledger);
      if (!unit) break;
      const sizeOf = (candidate: Unit<Write>) => candidate.writes.length + candidate.events.length + (ledger ? ledger.pendingActions() - stockBefore : 0);
      const aloneBytes = (candidate: Unit<Write>) => bytesOf(candidate) + (units.length === 0 ? (ledger?.pendingBytes() ?? 0) : 0);
      if (sizeOf(unit) > chunkActions || (chunkBytes !== undefined && aloneBytes(unit) > chunkBytes)) {
        // Too large for any transaction, even alone: a row error, never a stuck job.
        const needed = sizeOf(unit);
        ledger?.rollback();
        if (units.length > 0) break;
        unit = await this.decideEntry(run, entry, room, ledger, {
          rowNumber: entry.position,
          column: null,
          value: null,
          code: 'too-large',
          message: `Applying this needs ${needed} storage actions; at most ${chunkActions} fit one transaction. Split it into smaller parts.`,
        });
        if (!unit) break;
      }
      const size = sizeOf(unit);
      const unitBytes = bytesOf(unit) + (ledger?.pendingBytes() ?? 0);
      if (actions + size > chunkActions || (chunkBytes !== undefined && bytes + unitBytes > chunkBytes)) {
        ledger?.rollback();
        break;
      }
      if (ledger) ledger.endUnit();
      units.push(unit);
      actions += size;
      bytes += bytesOf(unit);
      stored += unit.storedErrors;
    }
    return units;
  }

  /**
   * Decides one pending entry. For kinds that move stock, against the chunk's ledger: a unit that
   * failed leaves no trace in it, the file's last row of a receipt or count closes it, and the
   * ledger's entries and events join the unit's. A decision that read stock not read yet is
   * decided again once it is read; undefined when time ran out first. The ledger's unit stays
   * open for the caller to keep or roll back.
   */
  private async decideEntry(run: RunState, entry: Pending, room: number, ledger: StockLedger | undefined, overrule?: RowError): Promise<Unit<Write> | undefined> {
    const overruled = (error: RowError) => (entry.unit?.rowNumbers ?? [entry.position]).map((rowNumber) => ({ ...error, rowNumber }));
    const judge = () => (entry.unit && !overrule ? this.decide(run, entry.unit, room, ledger) : this.failedUnit(run.job, overrule ? overruled(overrule) : (entry.errors ?? []), room));
    if (!ledger || !run.stock) return judge();
    const documentType = run.kind.stock?.document?.type;
    for (;;) {
      ledger.begin();
      const unit = judge();
      if (unit.action === 'failed') {
        // Refused on what it read (e.g. too little stock): nothing of it is kept but those reads,
        // which the commit checks.
        ledger.discardChanges();
      }
      const reference = run.documentEnds.get(entry.position);
      if (documentType && reference !== undefined) ledger.closeDocument(documentKey(run.job.id, documentType, reference), this.now());
      if (!run.stock.hasMisses()) {
        const { writes, events } = ledger.peekUnit();
        return { ...unit, writes: [...unit.writes, ...this.storeWrites(run.job.organizationId, [...writes])], events: [...unit.events, ...events] };
      }
      ledger.rollback();
      if (!run.hasTime()) return undefined;
      await run.stock.readMisses();
    }
  }

  /** Reads the stock the next units will probably touch (one batch per kind of record). */
  private async readStockAhead(run: RunState, from: number): Promise<void> {
    const { stock, kind, references, job } = run;
    const hooks = kind.stock;
    if (!stock || !hooks) return;
    const until = Math.min(run.pending.length, from + KEYS_PER_LOAD);
    const wanted = { stockRecords: [] as string[], items: [] as string[], documents: [] as string[] };
    const lookup = { resolve: (entity: ReferenceEntity, key: string) => references.get(entity)?.get(key) as never, item: (id: string) => stock.item(id) };
    for (let index = from; index < until; index += 1) {
      const entry = run.pending[index] as Pending;
      if (entry.unit) {
        const keys = hooks.keysOf(entry.unit, lookup);
        wanted.stockRecords.push(...keys.stockRecords);
        wanted.items.push(...keys.itemIds);
      }
      const reference = run.documentEnds.get(entry.position);
      if (hooks.document && reference !== undefined) wanted.documents.push(documentKey(job.id, hooks.document.type, reference));
    }
    await stock.read(wanted);
    run.stockReadThrough = until;
  }

  /** Reads the records of the next units' natural keys (one batch), and for trees their ancestors. */
  private async loadAhead(run: RunState, from: number): Promise<void> {
    const keys: string[] = [];
    for (let index = from; index < run.pending.length && keys.length < KEYS_PER_LOAD; index += 1) {
      const unit = run.pending[index]?.unit;
      if (!unit) continue;
      const key = run.kind.naturalKeyOf(unit.rows[0]);
      if (!run.loadedKeys.has(key) && !keys.includes(key)) keys.push(key);
    }
    const records = await this.ports.records.getByNaturalKeys(run.job.organizationId, run.kind.entity, keys);
    for (const key of keys) {
      run.loadedKeys.add(key);
      const record = records.get(key);
      if (record) run.existing.set(key, record);
    }
    await this.extendHierarchy(run, records);
  }

  /** After a conflict: the chunk's records as they are now. */
  private async reloadRecords(run: RunState, entries: Pending[]): Promise<void> {
    const keys = entries.flatMap((entry) => (entry.unit ? [run.kind.naturalKeyOf(entry.unit.rows[0])] : []));
    const fresh = await this.ports.records.getByNaturalKeys(run.job.organizationId, run.kind.entity, keys);
    for (const key of keys) {
      const record = fresh.get(key);
      if (record) run.existing.set(key, record);
      else run.existing.delete(key);
    }
    // The failed attempt's decisions set parent links that never committed, and the other writer
    // may have moved any record of the tree: the links are read again, as they stand now.
    const { hierarchy } = run;
    if (hierarchy) {
      const current = await this.ports.records.getByNaturalKeys(run.job.organizationId, run.kind.entity, hierarchy.keys());
      run.hierarchy = new Hierarchy(new Map());
      await this.includeInHierarchy(run.job.organizationId, run.kind, run.hierarchy, current);
    }
  }

  /** Every key the file refers to, read in slices with a look at the clock between them; undefined when time ran out. */
  private async loadReferences(organizationId: string, kind: AnyImportKind, parsed: readonly ParsedRow<unknown>[], hasTime: () => boolean) {
    const loaded = new Map<ReferenceEntity, Map<string, VersionedRecord<unknown>>>();
    for (const [entity, keySet] of referencedKeys(kind, parsed)) {
      const records = new Map<string, VersionedRecord<unknown>>();
      const keys = [...keySet];
      for (let start = 0; start < keys.length; start += REFERENCES_PER_SLICE) {
        if (!hasTime()) return undefined;
        for (const [key, record] of await this.ports.records.getByNaturalKeys(organizationId, entity, keys.slice(start, start + REFERENCES_PER_SLICE))) records.set(key, record);
      }
      loaded.set(entity, records);
    }
    return loaded;
  }

  /** For tree-shaped kinds: the parent links of the referenced records and all their ancestors. */
  private async hierarchyOf(organizationId: string, kind: AnyImportKind, references: Map<ReferenceEntity, Map<string, VersionedRecord<unknown>>>) {
    if (!kind.parentKeyOf || kind.entity === 'bom' || kind.entity === 'stock-entry') return undefined;
    const hierarchy = new Hierarchy(new Map());
    await this.includeInHierarchy(organizationId, kind, hierarchy, references.get(kind.entity) ?? new Map());
    return hierarchy;
  }

  private async extendHierarchy(run: RunState, records: Map<string, VersionedRecord<unknown>>): Promise<void> {
    if (run.hierarchy) await this.includeInHierarchy(run.job.organizationId, run.kind, run.hierarchy, records);
  }

  private async includeInHierarchy(organizationId: string, kind: AnyImportKind, hierarchy: Hierarchy, records: Map<string, VersionedRecord<unknown>>): Promise<void> {
    const { parentKeyOf } = kind;
    if (!parentKeyOf) return;
    await hierarchy.include(new Map([...records].map(([key, { record }]) => [key, parentKeyOf(record)])), async (keys) => {
      const ancestors = await this.ports.records.getByNaturalKeys(organizationId, kind.entity, keys);
      return new Map([...ancestors].map(([key, { record }]) => [key, parentKeyOf(record)]));
    });
  }

  private decide(run: RunState, unit: ImportUnit<unknown>, errorRoom: number, ledger?: StockLedger): Unit<Write> {
    const { kind, job, existing, references, hierarchy } = run;
    const rowNumber = unit.rowNumbers[0] ?? 0;
    const naturalKey = kind.naturalKeyOf(unit.rows[0]);
    const decision = kind.decideUnit(unit, existing.get(naturalKey), job.duplicateStrategy, {
      now: this.now(),
      newId: () => newKindRecordId(kind.entity),
      rowNumber,
      // The map per entity holds that entity's records (loaded by getByNaturalKeys for it), which
      // the generic signature cannot see.
      resolve: (entity, key) => references.get(entity)?.get(key) as never,
      ...(ledger && run.stock ? { stock: { ledger, jobId: job.id, item: (id: string) => run.stock?.item(id) } } : {}),
    });
    const failed = (error: RowError) => this.failedUnit(job, unit.rowNumbers.map((number) => ({ ...error, rowNumber: number })), errorRoom);
    if (decision.action === 'failed') return failed(decision.error);
    const counted = { rowNumber, rowCount: unit.rowNumbers.length, storedErrors: 0, unstoredErrors: 0 };
    if (decision.action === 'skipped') return { ...counted, writes: [], events: [], action: 'skipped' };
    const cycle = hierarchy && this.cycleOf(kind, decision.writes, hierarchy);
    if (cycle) return failed(cycle);
    return { ...counted, writes: this.storeWrites(job.organizationId, decision.writes), events: decision.events, action: decision.action };
  }

  /** For tree-shaped kinds: the row error of a write that would make a record its own ancestor. */
  private cycleOf(kind: AnyImportKind, writes: RecordWrite[], hierarchy: Hierarchy): RowError | undefined {
    const { parentKeyOf } = kind;
    if (!parentKeyOf) return undefined;
    for (const write of writes) {
      if ((write.op !== 'create' && write.op !== 'update') || write.entity !== kind.entity) continue;
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
    return writes.flatMap((write) => this.ports.records.writesOf(organizationId, write));
  }

  /** The verdict of failed rows: their errors, stored while `room` (and the per-unit limit) allows, counted always. */
  private failedUnit(job: ImportJobState, errors: RowError[], room: number): Unit<Write> {
    const rowNumber = errors[0]?.rowNumber ?? 0;
    const stored = errors.slice(0, Math.min(room, MAX_STORED_ERRORS_PER_UNIT));
    const indexInRow = new Map<number, number>();
    const writes = stored.map((error) => {
      const index = indexInRow.get(error.rowNumber) ?? 0;
      indexInRow.set(error.rowNumber, index + 1);
      return this.ports.jobs.rowErrorWrite(job, error, index);
    });
    return {
      rowNumber,
      rowCount: new Set(errors.map((error) => error.rowNumber)).size || 1,
      writes,
      events: [],
      action: 'failed',
      storedErrors: stored.length,
      unstoredErrors: errors.length - stored.length,
    };
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
  ports: { jobs: Pick<ProcessPorts<Write>['jobs'], 'finishWrite'>; writer: CommandWriter<Write>; onEnded?: ProcessPorts<Write>['onEnded'] },
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
    return;
  }
  ports.onEnded?.(job, status);
}

function progressOf<Write>(chunk: Unit<Write>[]): ChunkProgress {
  const counts: Partial<JobCounts> = { processedRows: 0 };
  let storedErrors = 0;
  let unstoredErrors = 0;
  for (const unit of chunk) {
    counts.processedRows = (counts.processedRows ?? 0) + unit.rowCount;
    counts[unit.action] = (counts[unit.action] ?? 0) + unit.rowCount;
    storedErrors += unit.storedErrors;
    unstoredErrors += unit.unstoredErrors;
  }
  return { counts, storedErrors, unstoredErrors };
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

/** For kinds with receipts or counts: row number → reference, at the file's last row of each document. */
function documentEndsOf(kind: AnyImportKind, rows: readonly { rowNumber: number; raw: Readonly<Record<string, string>> }[]): Map<number, string> {
  const referenceOf = kind.stock?.document?.referenceOf;
  if (!referenceOf) return new Map();
  const lastRow = new Map<string, number>();
  for (const { rowNumber, raw } of rows) {
    const reference = referenceOf(raw);
    if (reference !== undefined && reference.trim() !== '') lastRow.set(reference, rowNumber);
  }
  return new Map([...lastRow].map(([reference, rowNumber]) => [rowNumber, reference]));
}
