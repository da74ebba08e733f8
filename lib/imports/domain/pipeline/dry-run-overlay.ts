import type { Item } from '../../../inventory/index.ts';
import { naturalKeyOf, type VersionedRecord } from '../../../inventory/index.ts';
import type { StockRecord } from '../../../inventory/index.ts';
import type { StockPlace } from '../../../stock/index.ts';
import type { KindEntity, RecordWrite, StockStateEntity } from '../kind-definition.ts';

/**
 * The would-be state of a dry run (docs/imports.md "Dry runs"): every record, claim, item total
 * and document the units decided so far would have written, by the natural key the pipeline reads
 * it by, with the version the store would have given it. The pipeline's reads consult it before
 * the store, so later rows are decided as if earlier rows had been applied; nothing is written.
 */

export type OverlayEntity = KindEntity | StockStateEntity;

/** One would-be record (serializable: the overlay is persisted as a list of these). */
export interface OverlayEntry {
  entity: OverlayEntity;
  key: string;
  stored: VersionedRecord<unknown>;
}

/**
 * What a write would leave stored, by natural key; nothing for writes no read of the pipeline
 * looks at again (movements, builds) or that only check a version.
 */
export function entriesOf(write: RecordWrite): OverlayEntry[] {
  switch (write.op) {
    case 'create':
      return [{ entity: write.entity, key: naturalKeyOf(write.entity, write.record), stored: { record: write.record, version: 1 } }];
    case 'update':
      return [{ entity: write.entity, key: naturalKeyOf(write.entity, write.record), stored: { record: write.record, version: write.expectedVersion + 1 } }];
    case 'create-bom':
      return [{ entity: 'bom', key: write.bom.code, stored: { record: write.bom, version: 1 } }];
    case 'update-bom':
      return [{ entity: 'bom', key: write.bom.code, stored: { record: write.bom, version: write.expectedVersion + 1 } }];
    case 'put-item-stock':
      return [{ entity: 'item-stock', key: write.itemStock.itemId, stored: { record: write.itemStock, version: (write.expectedVersion ?? 0) + 1 } }];
    case 'put-document':
      return [{ entity: 'stock-document', key: write.document.key, stored: { record: write.document, version: (write.expectedVersion ?? 0) + 1 } }];
    case 'claim-entry':
      return [{ entity: 'stock-entry', key: write.entry.key, stored: { record: write.entry, version: 1 } }];
    case 'check':
    case 'check-bom':
    case 'check-item-stock':
    case 'check-stock-record':
    case 'record-movement':
    case 'create-build':
      return [];
  }
}

const placeKey = (place: StockPlace) => `${place.itemId}#${place.locationId}`;

export class DryRunOverlay {
  private readonly byKey = new Map<OverlayEntity, Map<string, VersionedRecord<unknown>>>();
  private readonly itemsById = new Map<string, Item>();
  /** Stock records by place, by natural key: a place's lots include those the dry run created. */
  private readonly stockAtPlace = new Map<string, Map<string, StockRecord>>();

  constructor(entries: Iterable<OverlayEntry> = []) {
    this.apply(entries);
  }

  apply(entries: Iterable<OverlayEntry>): void {
    for (const entry of entries) {
      const ofEntity = this.byKey.get(entry.entity) ?? new Map<string, VersionedRecord<unknown>>();
      ofEntity.set(entry.key, entry.stored);
      this.byKey.set(entry.entity, ofEntity);
      if (entry.entity === 'item') {
        const item = entry.stored.record as Item;
        this.itemsById.set(item.id, item);
      }
      if (entry.entity === 'stock-record') {
        const record = entry.stored.record as StockRecord;
        const atPlace = this.stockAtPlace.get(placeKey(record)) ?? new Map<string, StockRecord>();
        atPlace.set(entry.key, record);
        this.stockAtPlace.set(placeKey(record), atPlace);
      }
    }
  }

  get(entity: OverlayEntity, key: string): VersionedRecord<unknown> | undefined {
    return this.byKey.get(entity)?.get(key);
  }

  item(id: string): Item | undefined {
    return this.itemsById.get(id);
  }

  /** The would-be stock records at a place, by natural key. */
  stockRecordsAt(place: StockPlace): ReadonlyMap<string, StockRecord> {
    return this.stockAtPlace.get(placeKey(place)) ?? new Map();
  }

  entries(): OverlayEntry[] {
    return [...this.byKey].flatMap(([entity, records]) => [...records].map(([key, stored]) => ({ entity, key, stored })));
  }
}
