import { commitStep, isWriteConflict, pauseBeforeRetry } from '../../../platform/jobs/checkpoint.ts';
import { newRecordId } from '../../../inventory/index.ts';
import { newMovementId } from '../../../inventory/index.ts';
import { StockLedger } from '../../../stock/index.ts';
import type { WriteContext } from '../../../platform/write/ports.ts';
import type { ChunkProgress, JobCounts } from '../job.ts';
import { planChunk } from './plan-chunk.ts';
import { readAheadDuringCommit, reloadRecords } from './read-ahead.ts';
import type { ImportEntity, RecordWrite } from '../kind-definition.ts';
import { storeWrites, type RunState, type Unit } from './run-state.ts';
import type { DryRunSession } from './dry-run.ts';

/**
 * Commit with re-decision: a chunk's records, events, row verdicts and the job's checkpoint and
 * counts in ONE transaction, committed exactly once (lib/platform/jobs/checkpoint.ts). When
 * another writer changed a record the chunk decided on (a concurrent job on the same skus), the
 * chunk's records are read again and the chunk is decided again from them.
 */

/**
 * How often one chunk is decided again against fresh records after another writer changed them
 * (a busy stock record can take many); between attempts the worker waits a random while.
 */
const MAX_CHUNK_REDECISIONS = 50;
const REDECISION_PAUSE_MS = 50;

/**
 * Builds the chunk that starts at `pending[from]`, commits it with the job's checkpoint moving
 * to its last row, and returns how many pending entries it covered (0: out of time before any
 * was ready; undefined: another delivery had already moved the checkpoint).
 */
export async function commitNextChunk<Write>(context: WriteContext, run: RunState<Write>, from: number): Promise<number | undefined> {
  for (let redecisions = 0; ; redecisions += 1) {
    const ledger = run.stock && new StockLedger(run.stock, { stockRecord: () => newRecordId('stock-record'), movement: newMovementId });
    const units = await planChunk(run, from, ledger);
    if (units.length === 0) return 0;
    const to = units.at(-1)?.rowNumber ?? run.checkpoint;
    const progress = progressOf(units);
    // Each stock record, item total and document the chunk changed, written once.
    const stockWrites = ledger ? storeWrites(run, ledger.flush()) : [];
    // For trees: the stored ancestors the chunk's links rest on, still as read.
    const ancestorChecks = storeWrites(
      run,
      (run.hierarchy?.checks() ?? []).map(
        ({ record, version }) => ({ op: 'check', entity: run.kind.entity as ImportEntity, record, expectedVersion: version }) as RecordWrite,
      ),
    );
    const writes = [...units.flatMap((unit) => unit.writes), ...stockWrites, ...ancestorChecks];
    const events = units.flatMap((unit) => unit.events);
    try {
      const commit = (async () => {
        // A dry run commits the job's progress and row errors only, once the chunk's records are
        // in the overlay's next object (docs/imports.md "Dry runs").
        const staged = run.dryRun && (await stageDryRun(run.dryRun, writes));
        const committed = await commitStep(run.ports.writer, context, () => ({
          checkpoint: run.ports.jobs.checkpointWrite(run.job, run.checkpoint, to, progress, staged ? staged.pointer : undefined),
          writes: staged ? staged.kept : writes,
          events: staged ? [] : events,
        }));
        return { staged, committed };
      })();
      // The next chunk's reads while this one commits; both are waited for before what it
      // committed is taken as the state (a conflict throws only after the reads are done too).
      const [outcome] = await Promise.allSettled([commit, readAheadDuringCommit(run, from + units.length)]);
      if (outcome.status === 'rejected') throw outcome.reason;
      const { staged, committed } = outcome.value;
      if (committed === 'already-committed') return undefined;
      run.checkpoint = to;
      if (staged) run.dryRun?.committed(staged.entries);
      run.storedErrors += progress.storedErrors;
      if (ledger) run.stock?.advance(ledger);
      run.hierarchy?.committed();
      return units.length;
    } catch (error) {
      if (!isWriteConflict(error)) throw error;
      // A conflict is never a failure: after many in a row, the caller looks at the clock and
      // tries again or hands the job on.
      if (!run.hasTime() || redecisions >= MAX_CHUNK_REDECISIONS) return 0;
      await pauseBeforeRetry(redecisions, REDECISION_PAUSE_MS);
      run.stock?.forget();
      run.stockReadThrough = from;
      await reloadRecords(run, run.pending.slice(from, from + units.length));
    }
  }
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

/** A dry run's chunk: its record writes staged in the overlay's next object, the job's own writes kept. */
async function stageDryRun<Write>(session: DryRunSession<Write & object>, writes: Write[]) {
  // The dry run's records port made every action, and its actions are objects (see RunState.dryRun).
  const { recordWrites, kept } = session.records.split(writes as Array<Write & object>);
  return { ...(await session.stage(recordWrites)), kept: kept as Write[] };
}
