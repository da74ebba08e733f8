import type { Hierarchy } from '../../../inventory/index.ts';
import { naturalKeyOf } from '../../../inventory/index.ts';
import type { StockLedger } from '../../../stock/index.ts';
import { documentKey } from '../../../stock/index.ts';
import type { ImportJobState } from '../job.ts';
import { newKindRecordId, type AnyImportKind, type ImportUnit, type RecordWrite } from '../kind-definition.ts';
import type { RowError } from '../types.ts';
import type { ProcessPorts } from './ports.ts';
import { storeWrites, type Pending, type RunState, type Unit } from './run-state.ts';

/**
 * Deciding one pending entry: a unit of valid rows is decided by its kind (against the chunk's
 * stock ledger for kinds that move stock; refused when it would make a tree cycle), a
 * validation verdict becomes the unit's stored row errors.
 */

/**
 * At most this many errors of one unit (a row, or a group of rows) are stored, so that a unit's
 * verdict always fits one transaction; the others are counted.
 */
const MAX_STORED_ERRORS_PER_UNIT = 50;

/**
 * Decides one pending entry. For kinds that move stock, against the chunk's ledger: a unit that
 * failed leaves no trace in it, the file's last row of a receipt or count closes it, and the
 * ledger's entries and events join the unit's. A decision that read stock not read yet is
 * decided again once it is read; undefined when time ran out first. The ledger's unit stays
 * open for the caller to keep or roll back. `overrule` fails the entry with that error instead.
 */
export async function decideEntry<Write>(
  run: RunState<Write>,
  entry: Pending,
  room: number,
  ledger: StockLedger | undefined,
  overrule?: RowError,
): Promise<Unit<Write> | undefined> {
  const overruled = (error: RowError) => (entry.unit?.rowNumbers ?? [entry.position]).map((rowNumber) => ({ ...error, rowNumber }));
  const judge = () =>
    entry.unit && !overrule
      ? decide(run, entry.unit, room, ledger)
      : failedUnit(run.ports, run.job, overrule ? overruled(overrule) : (entry.errors ?? []), room);
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
    if (documentType && reference !== undefined) ledger.closeDocument(documentKey(run.job.id, documentType, reference), run.now());
    if (!run.stock.hasMisses()) {
      const { writes, events } = ledger.peekUnit();
      return { ...unit, writes: [...unit.writes, ...storeWrites(run, [...writes])], events: [...unit.events, ...events] };
    }
    ledger.rollback();
    if (!run.hasTime()) return undefined;
    await run.stock.readMisses();
  }
}

function decide<Write>(run: RunState<Write>, unit: ImportUnit<unknown>, errorRoom: number, ledger?: StockLedger): Unit<Write> {
  const { kind, job, existing, references, hierarchy } = run;
  const rowNumber = unit.rowNumbers[0] ?? 0;
  const naturalKey = kind.naturalKeyOf(unit.rows[0]);
  // A unit whose build ran to its end (job-units.ts) has its verdict already.
  const decision =
    run.jobVerdicts.get(rowNumber) ??
    kind.decideUnit(unit, existing.get(naturalKey), job.duplicateStrategy, {
      now: run.now(),
      newId: () => newKindRecordId(kind.entity),
      rowNumber,
      // The map per entity holds that entity's records (loaded by getByNaturalKeys for it), which
      // the generic signature cannot see.
      resolve: (entity, key) => references.get(entity)?.get(key) as never,
      ...(ledger && run.stock ? { stock: { ledger, jobId: job.id, item: (id: string) => run.stock?.item(id) } } : {}),
    });
  const failed = (error: RowError) =>
    failedUnit(
      run.ports,
      job,
      unit.rowNumbers.map((number) => ({ ...error, rowNumber: number })),
      errorRoom,
    );
  if (decision.action === 'failed') return failed(decision.error);
  const counted = { rowNumber, rowCount: unit.rowNumbers.length, storedErrors: 0, unstoredErrors: 0 };
  if (decision.action === 'skipped') return { ...counted, writes: [], events: [], action: 'skipped' };
  const cycle = hierarchy && cycleOf(kind, decision.writes, hierarchy);
  if (cycle) return failed(cycle);
  return { ...counted, writes: storeWrites(run, decision.writes), events: decision.events, action: decision.action };
}

/** For tree-shaped kinds: the row error of a write that would make a record its own ancestor. */
function cycleOf(kind: AnyImportKind, writes: RecordWrite[], hierarchy: Hierarchy): RowError | undefined {
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
    hierarchy.link(key, parent, write.record);
  }
  return undefined;
}

/** The verdict of failed rows: their errors, stored while `room` (and the per-unit limit) allows, counted always. */
function failedUnit<Write>(ports: ProcessPorts<Write>, job: ImportJobState, errors: RowError[], room: number): Unit<Write> {
  const rowNumber = errors[0]?.rowNumber ?? 0;
  const stored = errors.slice(0, Math.min(room, MAX_STORED_ERRORS_PER_UNIT));
  const indexInRow = new Map<number, number>();
  const writes = stored.map((error) => {
    const index = indexInRow.get(error.rowNumber) ?? 0;
    indexInRow.set(error.rowNumber, index + 1);
    return ports.jobs.rowErrorWrite(job, error, index);
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
