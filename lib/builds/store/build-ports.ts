import type { BuildPorts } from '../domain/ports.ts';
import { recordsOf } from '../../stock/index.ts';
import type { Item } from '../../inventory/index.ts';
import { BomsStore } from '../../boms/store/index.ts';
import { BuildProvenanceStore } from '../../boms/store/index.ts';
import { BuildsStore } from './builds-store.ts';
import { InventoryStore } from '../../inventory/store/index.ts';
import { StockChangeStoreReads } from '../../stock/store/index.ts';
import { StockStore } from '../../stock/store/index.ts';
import { stockStateByKeys, stockWritesOf } from '../../stock/store/index.ts';
import { TransactionWriter, type StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * What build jobs read and write through (docs/boms.md "Builds"): BOMs and their revisions, items
 * and locations by id, the stock state and writes the import pipeline and the JSON stock changes
 * use, the builds themselves, and the writer every command commits through.
 */
export function buildPorts(tables: { inventory: string; events: string; audit: string }): BuildPorts<StoreWrite> & { store: BuildsStore } {
  const inventory = new InventoryStore(tables.inventory);
  const stock = new StockStore(tables.inventory);
  const boms = new BomsStore(tables.inventory);
  const provenanceStore = new BuildProvenanceStore(tables.inventory);
  const store = new BuildsStore(tables.inventory, stock);
  const reads = new StockChangeStoreReads(tables.inventory, inventory);
  return {
    store,
    builds: store,
    boms,
    references: (organizationId, wanted) => reads.references(organizationId, wanted),
    stock: {
      // Stock records through the reads that remember each key's record id (a stock record is never deleted): a record read before takes one round trip, not two.
      getByNaturalKeys: async (organizationId, entity, naturalKeys) =>
        entity === 'stock-record'
          ? (await reads.stock(organizationId, { recordKeys: [...naturalKeys], itemIds: [], claimKeys: [] })).records
          : stockStateByKeys(inventory, stock, organizationId, entity, naturalKeys),
      getItemsByIds: async (organizationId, ids) => recordsOf(await inventory.getByIds(organizationId, 'item', ids)) as Map<string, Item>,
      stockRecordsAt: (organizationId, places) => inventory.stockRecordsAt(organizationId, places),
      recordsAndTotals: async (organizationId, recordKeys, itemIds) => {
        const { records, totals } = await reads.stock(organizationId, { recordKeys, itemIds, claimKeys: [] });
        return { records, totals };
      },
      writesOf: (organizationId, write) => stockWritesOf(inventory, stock, organizationId, write),
    },
    provenanceGroups: (organizationId, provenance, maxActions) => provenanceStore.provenanceWriteGroups(organizationId, provenance, maxActions),
    writer: new TransactionWriter({ events: tables.events, audit: tables.audit }),
  };
}
