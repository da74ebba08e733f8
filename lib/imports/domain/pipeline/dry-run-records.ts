import type { Item } from '../../../inventory/index.ts';
import type { VersionedRecord } from '../../../inventory/index.ts';
import { stockRecordKey, type StockRecord } from '../../../inventory/index.ts';
import type { ImportRecords, RecordWrite } from '../kind-definition.ts';
import type { DryRunOverlay } from './dry-run-overlay.ts';

/**
 * The records port of a dry run (docs/imports.md "Dry runs"): reads consult the overlay of
 * would-be records first and ask the store only for the rest (so a dry run never reads more than
 * the real run would), and every storage action of a record write is tagged with the write it
 * came from, so the commit can keep it out of the transaction and apply it to the overlay instead.
 * The storage actions themselves are the store's own: a chunk is planned to exactly the size it
 * has in a real run, and its rows are decided the same.
 */
export class DryRunRecords<Write extends object> implements ImportRecords<Write> {
  /** Each record write's first storage action → the write; its other actions → null. */
  private readonly origins = new WeakMap<Write, RecordWrite | null>();

  constructor(
    private readonly store: ImportRecords<Write>,
    readonly overlay: DryRunOverlay,
  ) {}

  async getByNaturalKeys(
    organizationId: string,
    entity: Parameters<ImportRecords['getByNaturalKeys']>[1],
    naturalKeys: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<unknown>>> {
    const found = new Map<string, VersionedRecord<unknown>>();
    const unknown: string[] = [];
    for (const key of naturalKeys) {
      const stored = this.overlay.get(entity, key);
      if (stored) found.set(key, stored);
      else unknown.push(key);
    }
    if (unknown.length > 0) for (const [key, stored] of await this.store.getByNaturalKeys(organizationId, entity, unknown)) found.set(key, stored);
    return found;
  }

  async getItemsByIds(organizationId: string, ids: Iterable<string>): Promise<Map<string, Item>> {
    const found = new Map<string, Item>();
    const unknown: string[] = [];
    for (const id of ids) {
      const item = this.overlay.item(id);
      if (item) found.set(id, item);
      else unknown.push(id);
    }
    if (unknown.length > 0) for (const [id, item] of await this.store.getItemsByIds(organizationId, unknown)) found.set(id, item);
    return found;
  }

  async stockRecordsAt(organizationId: string, places: Parameters<ImportRecords['stockRecordsAt']>[1]): Promise<StockRecord[]> {
    const byKey = new Map<string, StockRecord>();
    for (const record of await this.store.stockRecordsAt(organizationId, places, { readOnly: true }))
      byKey.set(stockRecordKey(record.itemId, record.locationId, record.lot), record);
    for (const place of places) for (const [key, record] of this.overlay.stockRecordsAt(place)) byKey.set(key, record);
    return [...byKey.values()];
  }

  writesOf(organizationId: string, write: RecordWrite): Write[] {
    const actions = this.store.writesOf(organizationId, write);
    actions.forEach((action, index) => this.origins.set(action, index === 0 ? write : null));
    return actions;
  }

  /**
   * A chunk's storage actions, split: those of record writes (never committed by a dry run), as
   * the record writes they came from, in order; and the job's own (row errors), kept.
   */
  split(actions: readonly Write[]): { recordWrites: RecordWrite[]; kept: Write[] } {
    const recordWrites: RecordWrite[] = [];
    const kept: Write[] = [];
    for (const action of actions) {
      const origin = this.origins.get(action);
      if (origin === undefined) kept.push(action);
      else if (origin !== null) recordWrites.push(origin);
    }
    return { recordWrites, kept };
  }
}
