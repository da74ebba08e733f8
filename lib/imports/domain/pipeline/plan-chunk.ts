import { batchLengths, draftEventBytes } from '../../../platform/events/batches.ts';
import type { EventDraft } from '../../../platform/events/types.ts';
import type { StockLedger } from '../../../stock/index.ts';
import { MAX_STORED_ROW_ERRORS } from '../job.ts';
import { decideEntry } from './decide-unit.ts';
import { isJobUnit, runJobUnit } from './job-units.ts';
import { loadAhead, readStockAhead } from './read-ahead.ts';
import type { Pending, RunState, Unit } from './run-state.ts';

/**
 * Chunk planning: the pending entries from a position on, decided one after the other while
 * their writes fit ONE transaction (the store's action and byte limits, bytes counted in UTF-8); a unit too large for
 * any transaction, even alone, becomes a row error instead of a stuck job. All of a chunk's events
 * take one action together, one more per size split (lib/platform/events/batches.ts): they are
 * counted as the chunk's whole list, not event by event.
 */

/**
 * Decides pending entries from `from` on while their writes fit one transaction. Records are
 * read ahead as needed, a batch of keys at a time; the clock is checked before each read.
 */
export async function planChunk<Write>(run: RunState<Write>, from: number, ledger?: StockLedger): Promise<Unit<Write>[]> {
  const units: Unit<Write>[] = [];
  // Actions of the chunk's writes; its events are counted apart, as batches of `eventSizes`.
  let actions = 0;
  let eventSizes: number[] = [];
  let bytes = 0;
  let stored = run.storedErrors;
  const { chunkBytes, writeBytes, chunkActions } = run.ports;
  run.hierarchy?.startChunk();
  const sizesOf = (events: readonly EventDraft[]) => events.map((event) => draftEventBytes(event, run.job.organizationId));
  const eventItems = (sizes: readonly number[]) => batchLengths(sizes).length;
  const bytesOf = (unit: Unit<Write>) =>
    writeBytes ? unit.writes.reduce((sum, write) => sum + writeBytes(write), 0) + sizesOf(unit.events).reduce((sum, size) => sum + size, 0) : 0;
  for (let index = from; index < run.pending.length; index += 1) {
    const entry = run.pending[index] as Pending;
    if (entry.unit && !run.loadedKeys.has(run.kind.naturalKeyOf(entry.unit.rows[0]))) {
      if (!run.hasTime()) break;
      await loadAhead(run, index);
    }
    // A build job reads its own stock: its verdict reads none.
    const jobUnit = isJobUnit(run, entry);
    if (run.stock && index >= run.stockReadThrough && !jobUnit) {
      if (!run.hasTime()) break;
      await readStockAhead(run, index);
    }
    if (jobUnit && !run.jobVerdicts.has(entry.position)) {
      // Its build runs in transactions of its own, on stock as committed: after any stock change
      // the chunk holds so far. Verdicts of builds that ended share one chunk.
      if ((units.length > 0 && (ledger?.pendingActions() ?? 0) > 0) || !run.hasTime()) break;
      if (!(await runJobUnit(run, entry, index))) break;
    }
    const room = Math.max(0, MAX_STORED_ROW_ERRORS - stored);
    // Coalesced stock writes the chunk already has; a unit adds to them only what it changes first.
    const stockBefore = ledger?.pendingActions() ?? 0;
    // Tree ancestors the chunk checks (docs/imports.md "locations"), likewise.
    const checksBefore = run.hierarchy?.checks().length ?? 0;
    run.hierarchy?.begin();
    let unit = await decideEntry(run, entry, room, ledger);
    if (!unit) break;
    const writeActionsOf = (candidate: Unit<Write>) =>
      candidate.writes.length + (ledger ? ledger.pendingActions() - stockBefore : 0) + (run.hierarchy ? run.hierarchy.checks().length - checksBefore : 0);
    // What the unit needs in a transaction of its own.
    const sizeOf = (candidate: Unit<Write>) => writeActionsOf(candidate) + eventItems(sizesOf(candidate.events));
    const aloneBytes = (candidate: Unit<Write>) => bytesOf(candidate) + (units.length === 0 ? (ledger?.pendingBytes() ?? 0) : 0);
    if (sizeOf(unit) > chunkActions || (chunkBytes !== undefined && aloneBytes(unit) > chunkBytes)) {
      if (overlaidBuild(run) && units.length === 0) {
        // A dry run's build: its writes go to the overlay, not the transaction, whatever its size (docs/imports.md "Dry runs").
        ledger?.endUnit();
        units.push(unit);
        break;
      }
      // Too large for any transaction, even alone: a row error, never a stuck job.
      const needed = sizeOf(unit);
      ledger?.rollback();
      run.hierarchy?.rollback();
      if (units.length > 0) break;
      unit = await decideEntry(run, entry, room, ledger, {
        rowNumber: entry.position,
        column: null,
        value: null,
        code: 'too-large',
        message: `Applying this needs ${needed} storage actions; at most ${chunkActions} fit one transaction. Split it into smaller parts.`,
      });
      if (!unit) break;
    }
    const writeActions = writeActionsOf(unit);
    const chunkEventSizes = [...eventSizes, ...sizesOf(unit.events)];
    const unitBytes = bytesOf(unit) + (ledger?.pendingBytes() ?? 0);
    if (actions + writeActions + eventItems(chunkEventSizes) > chunkActions || (chunkBytes !== undefined && bytes + unitBytes > chunkBytes)) {
      ledger?.rollback();
      run.hierarchy?.rollback();
      break;
    }
    if (ledger) ledger.endUnit();
    units.push(unit);
    actions += writeActions;
    eventSizes = chunkEventSizes;
    bytes += bytesOf(unit);
    stored += unit.storedErrors;
  }
  return units;
}

/** Whether the run is a dry run of builds, whose writes the overlay takes, not the transaction. */
function overlaidBuild<Write>(run: RunState<Write>): boolean {
  return run.dryRun !== undefined && run.kind.buildJob !== undefined;
}
