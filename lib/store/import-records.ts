import type { ImportRecords, KindEntity, RecordWrite } from '../domain/imports/kind-definition.ts';
import type { VersionedRecord } from '../domain/inventory/records.ts';
import type { BomsStore } from './boms-store.ts';
import type { InventoryStore } from './inventory-store.ts';
import type { StoreWrite } from './transaction-writer.ts';

/** The import pipeline's records: inventory records, and BOMs for the `boms` kind. */
export class ImportRecordsStore implements ImportRecords<StoreWrite> {
  constructor(
    private readonly inventory: InventoryStore,
    private readonly boms: BomsStore,
  ) {}

  getByNaturalKeys(organizationId: string, entity: KindEntity, naturalKeys: Iterable<string>): Promise<Map<string, VersionedRecord<unknown>>> {
    return entity === 'bom' ? this.boms.getByCodes(organizationId, naturalKeys) : this.inventory.getByNaturalKeys(organizationId, entity, naturalKeys);
  }

  writesOf(organizationId: string, write: RecordWrite): StoreWrite[] {
    switch (write.op) {
      case 'create':
        return this.inventory.createWrites(organizationId, write.entity, write.record);
      case 'update':
        return [this.inventory.updateWrite(organizationId, write.entity, write.record, write.expectedVersion)];
      case 'append-movement':
        return [this.inventory.movementWrite(organizationId, write.movement)];
      case 'create-bom':
        return this.boms.createWrites(organizationId, write.bom, write.revision);
      case 'update-bom':
        return this.boms.updateWrites(organizationId, write.bom, write.expectedVersion, write.revision);
    }
  }
}
