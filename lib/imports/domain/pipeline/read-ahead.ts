import { Hierarchy } from '../../../inventory/index.ts';
import { documentKey } from '../../../stock/index.ts';
import type { StockPlace } from '../../../stock/index.ts';
import type { ReferenceEntity } from '../kind-definition.ts';
import { includeInHierarchy, reloadReferences } from './references.ts';
import type { Pending, RunState } from './run-state.ts';

/**
 * Read-ahead: the records the next units decide on (their natural keys; for trees their
 * ancestors; for kinds that move stock their stock records, item totals and documents), read a
 * batch at a time ahead of the chunk being built, and read again after a conflict.
 */

/** Natural keys read per batch while deciding rows (one BatchGetItem). */
const KEYS_PER_LOAD = 100;

/** Reads the records of the next units' natural keys (one batch), and for trees their ancestors. */
export async function loadAhead<Write>(run: RunState<Write>, from: number): Promise<void> {
  const keys: string[] = [];
  for (let index = from; index < run.pending.length && keys.length < KEYS_PER_LOAD; index += 1) {
    const unit = run.pending[index]?.unit;
    if (!unit) continue;
    const key = run.kind.naturalKeyOf(unit.rows[0]);
    if (!run.loadedKeys.has(key) && !keys.includes(key)) keys.push(key);
  }
  const records = await run.ports.records.getByNaturalKeys(run.job.organizationId, run.kind.entity, keys);
  for (const key of keys) {
    run.loadedKeys.add(key);
    const record = records.get(key);
    if (record) run.existing.set(key, record);
  }
  if (run.hierarchy) await includeInHierarchy(run.ports.records, run.job.organizationId, run.kind, run.hierarchy, records);
}

/** Reads the stock the next units will probably touch (one batch per kind of record). */
export async function readStockAhead<Write>(run: RunState<Write>, from: number): Promise<void> {
  const { stock, kind, references, job } = run;
  const hooks = kind.stock;
  if (!stock || !hooks) return;
  const until = Math.min(run.pending.length, from + KEYS_PER_LOAD);
  const wanted = { stockRecords: [] as string[], items: [] as string[], documents: [] as string[], places: [] as StockPlace[] };
  const lookup = { resolve: (entity: ReferenceEntity, key: string) => references.get(entity)?.get(key) as never, item: (id: string) => stock.item(id) };
  for (let index = from; index < until; index += 1) {
    const entry = run.pending[index] as Pending;
    if (entry.unit) {
      const keys = hooks.keysOf(entry.unit, lookup);
      wanted.stockRecords.push(...keys.stockRecords);
      wanted.items.push(...keys.itemIds);
      wanted.places.push(...(keys.places ?? []));
    }
    const reference = run.documentEnds.get(entry.position);
    if (hooks.document && reference !== undefined) wanted.documents.push(documentKey(job.id, hooks.document.type, reference));
  }
  await stock.read(wanted);
  run.stockReadThrough = until;
}

/**
 * Reads what the units from `index` on will decide on, as the next chunk's planning would, while
 * the current chunk's transaction is in flight (docs/architecture.md "The import pipeline"): the
 * two overlap instead of adding up. Only for kinds without a tree (a tree's links change with
 * the chunk being committed). Records the current chunk writes are read as they were before it;
 * the caller waits for both, then the commit's own versions replace them (`StockState.advance`),
 * as they replace any record read ahead today. A failed read is left for the planning to redo.
 */
export async function readAheadDuringCommit<Write>(run: RunState<Write>, index: number): Promise<void> {
  if (run.hierarchy || index >= run.pending.length) return;
  // The next chunk's rows, up to a batch ahead: what its planning would stop to read.
  const until = Math.min(run.pending.length, index + KEYS_PER_LOAD);
  let unloaded: number | undefined;
  for (let at = index; at < until && unloaded === undefined; at += 1) {
    const unit = run.pending[at]?.unit;
    if (unit && !run.loadedKeys.has(run.kind.naturalKeyOf(unit.rows[0]))) unloaded = at;
  }
  const stockFrom = run.stock && run.stockReadThrough < until ? Math.max(index, run.stockReadThrough) : undefined;
  try {
    await Promise.all([unloaded === undefined ? undefined : loadAhead(run, unloaded), stockFrom === undefined ? undefined : readStockAhead(run, stockFrom)]);
  } catch {
    // The next chunk's planning reads what is still missing, and reports what fails there.
  }
}

/** After a conflict: the chunk's records as they are now. */
export async function reloadRecords<Write>(run: RunState<Write>, entries: Pending[]): Promise<void> {
  const { records } = run.ports;
  const { organizationId } = run.job;
  const keys = entries.flatMap((entry) => (entry.unit ? [run.kind.naturalKeyOf(entry.unit.rows[0])] : []));
  const fresh = await records.getByNaturalKeys(organizationId, run.kind.entity, keys);
  await reloadReferences(records, organizationId, run.kind, run.references, entries);
  for (const key of keys) {
    const record = fresh.get(key);
    if (record) run.existing.set(key, record);
    else run.existing.delete(key);
  }
  // The failed attempt's decisions set parent links that never committed, and the other writer
  // may have moved any record of the tree: the links are read again, as they stand now.
  const { hierarchy } = run;
  if (hierarchy) {
    const current = await records.getByNaturalKeys(organizationId, run.kind.entity, hierarchy.keys());
    run.hierarchy = new Hierarchy(new Map());
    await includeInHierarchy(records, organizationId, run.kind, run.hierarchy, current);
  }
}
