import type { StockLedger } from '../../stock/ledger.ts';
import { jsonBytes } from '../../write/json-bytes.ts';
import { MAX_STORED_ROW_ERRORS } from '../job.ts';
import { decideEntry } from './decide-unit.ts';
import { loadAhead, readStockAhead } from './read-ahead.ts';
import type { Pending, RunState, Unit } from './run-state.ts';

/**
 * Chunk planning: the pending entries from a position on, decided one after the other while
 * their writes fit ONE transaction (the store's action and byte limits, bytes counted in UTF-8); a unit too large for
 * any transaction, even alone, becomes a row error instead of a stuck job.
 */

/**
 * Decides pending entries from `from` on while their writes fit one transaction. Records are
 * read ahead as needed, a batch of keys at a time; the clock is checked before each read.
 */
export async function planChunk<Write>(run: RunState<Write>, from: number, ledger?: StockLedger): Promise<Unit<Write>[]> {
  const units: Unit<Write>[] = [];
  let actions = 0;
  let bytes = 0;
  let stored = run.storedErrors;
  const { chunkBytes, writeBytes, chunkActions } = run.ports;
  run.hierarchy?.startChunk();
  const bytesOf = (unit: Unit<Write>) =>
    writeBytes ? unit.writes.reduce((sum, write) => sum + writeBytes(write), 0) + unit.events.reduce((sum, event) => sum + jsonBytes(event), 0) : 0;
  for (let index = from; index < run.pending.length; index += 1) {
    const entry = run.pending[index] as Pending;
    if (entry.unit && !run.loadedKeys.has(run.kind.naturalKeyOf(entry.unit.rows[0]))) {
      if (!run.hasTime()) break;
      await loadAhead(run, index);
    }
    if (run.stock && index >= run.stockReadThrough) {
      if (!run.hasTime()) break;
      await readStockAhead(run, index);
    }
    const room = Math.max(0, MAX_STORED_ROW_ERRORS - stored);
    // Coalesced stock writes the chunk already has; a unit adds to them only what it changes first.
    const stockBefore = ledger?.pendingActions() ?? 0;
    // Tree ancestors the chunk checks (docs/imports.md "locations"), likewise.
    const checksBefore = run.hierarchy?.checks().length ?? 0;
    run.hierarchy?.begin();
    let unit = await decideEntry(run, entry, room, ledger);
    if (!unit) break;
    const sizeOf = (candidate: Unit<Write>) =>
      candidate.writes.length + candidate.events.length + (ledger ? ledger.pendingActions() - stockBefore : 0) + (run.hierarchy ? run.hierarchy.checks().length - checksBefore : 0);
    const aloneBytes = (candidate: Unit<Write>) => bytesOf(candidate) + (units.length === 0 ? (ledger?.pendingBytes() ?? 0) : 0);
    if (sizeOf(unit) > chunkActions || (chunkBytes !== undefined && aloneBytes(unit) > chunkBytes)) {
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
    const size = sizeOf(unit);
    const unitBytes = bytesOf(unit) + (ledger?.pendingBytes() ?? 0);
    if (actions + size > chunkActions || (chunkBytes !== undefined && bytes + unitBytes > chunkBytes)) {
      ledger?.rollback();
      run.hierarchy?.rollback();
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
