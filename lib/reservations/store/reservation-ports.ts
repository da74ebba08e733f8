import type { ReservationPorts } from '../domain/ports.ts';
import { recordsOf } from '../../stock/index.ts';
import { InventoryStore } from '../../inventory/store/index.ts';
import { ReservationBeforeImagesStore } from './reservation-before-images.ts';
import { ReservationsStore } from './reservations-store.ts';
import { StockChangeStoreReads } from '../../stock/store/index.ts';
import { StockStore } from '../../stock/store/index.ts';
import { stockStateByKeys, stockWritesOf } from '../../stock/store/index.ts';
import type { StoreWrite } from '../../platform/dynamo/transaction-writer.ts';

/**
 * What the reservation commands read and write through (docs/inventory.md "Reservations and
 * available stock"): the JSON stock changes' two-batch reads, the import pipeline's stock writes,
 * the reservations themselves and their before-images.
 */
export function reservationPorts(inventoryTable: string): ReservationPorts<StoreWrite> & { store: ReservationsStore } {
  const inventory = new InventoryStore(inventoryTable);
  const stock = new StockStore(inventoryTable);
  const store = new ReservationsStore(inventoryTable);
  return {
    store,
    reads: new StockChangeStoreReads(inventoryTable, inventory),
    stock: {
      getByNaturalKeys: (organizationId, entity, naturalKeys) => stockStateByKeys(inventory, stock, organizationId, entity, naturalKeys),
      getItemsByIds: async (organizationId, ids) => recordsOf(await inventory.getByIds(organizationId, 'item', ids)),
      stockRecordsAt: (organizationId, places) => inventory.stockRecordsAt(organizationId, places),
      writesOf: (organizationId, write) => stockWritesOf(inventory, stock, organizationId, write),
    },
    reservations: store,
    beforeImages: new ReservationBeforeImagesStore(inventoryTable),
  };
}
