import { batchLengths, draftEventBytes } from '../../lib/platform/events/batches.ts';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { Location } from '../../lib/inventory/domain/location.ts';
import type { VersionedRecord } from '../../lib/inventory/domain/records.ts';
import { reservedOf, stockRecordKey, sumQuantities, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import type { ReservationPorts, StoredReservation } from '../../lib/reservations/domain/ports.ts';
import type { Reservation } from '../../lib/reservations/domain/reservation.ts';
import type { ItemStock } from '../../lib/stock/domain/records.ts';
import type { CommandPlan } from '../../lib/platform/write/ports.ts';
import { InventoryStore } from '../../lib/inventory/store/inventory-store.ts';
import { ReservationBeforeImagesStore } from '../../lib/reservations/store/reservation-before-images.ts';
import { ReservationsStore } from '../../lib/reservations/store/reservations-store.ts';
import { StockStore } from '../../lib/stock/store/stock-store.ts';
import { stockWritesOf } from '../../lib/stock/store/stock-writes.ts';
import type { StoreWrite } from '../../lib/platform/dynamo/transaction-writer.ts';
import { STORED_AT } from './stock-world.ts';

/**
 * The reservation commands (lib/reservations/domain/) on in-memory stored stock, for unit tests
 * of their plans: items, locations, stock records and totals read from memory, and the writes
 * built by the REAL stores' builders (no request is sent), so a plan's length is the number of
 * storage actions it would commit. `transactionActions` adds what the writer adds
 * (lib/platform/dynamo/transaction-writer.ts): the event counter and event items, the audit entry and the
 * Idempotency-Key completion.
 */

const TABLE = 'inventory';

export class ReservationWorld {
  readonly items = new Map<string, Item>();
  readonly locations = new Map<string, Location>();
  /** By natural key (item#location#lot). */
  readonly records = new Map<string, VersionedRecord<StockRecord>>();
  readonly totals = new Map<string, VersionedRecord<ItemStock>>();
  readonly reservations = new Map<string, StoredReservation>();
  private created = 0;

  addItem(item: Item): void {
    this.items.set(item.id, item);
  }

  addLocation(location: Location): void {
    this.locations.set(location.id, location);
  }

  /** A stored stock record with `onHand` (and `reserved`), received in the order of the calls; the item's total follows. */
  stock(item: Item, location: Location, lot: string | null, onHand: number, reserved = 0): StockRecord {
    this.created += 1;
    const receivedAt = new Date(Date.parse(STORED_AT) + this.created).toISOString();
    const record: StockRecord = {
      id: `stk_${String(this.created).padStart(4, '0')}`,
      itemId: item.id,
      sku: item.sku,
      locationId: location.id,
      locationCode: location.code,
      lot,
      onHand,
      ...(reserved === 0 ? {} : { reserved }),
      createdAt: receivedAt,
      updatedAt: receivedAt,
    };
    this.records.set(stockRecordKey(item.id, location.id, lot), { record, version: 1 });
    const total = this.totals.get(item.id)?.record;
    this.totals.set(item.id, {
      record: {
        itemId: item.id,
        onHand: sumQuantities([total?.onHand ?? 0, onHand]),
        reserved: sumQuantities([total ? reservedOf(total) : 0, reserved]),
        trackingMode: item.trackingMode,
      },
      version: 1,
    });
    return record;
  }

  /** Stores a created reservation as its commit would: the reservation, and what its lines hold on their records and totals. */
  store(reservation: Reservation): void {
    this.reservations.set(reservation.id, { reservation, version: 1, requests: [] });
    for (const line of reservation.lines) {
      const key = stockRecordKey(line.itemId, line.locationId, line.lot);
      const stored = this.records.get(key)!;
      this.records.set(key, { record: { ...stored.record, reserved: sumQuantities([reservedOf(stored.record), line.quantity]) }, version: stored.version + 1 });
      const total = this.totals.get(line.itemId)!;
      this.totals.set(line.itemId, {
        record: { ...total.record, reserved: sumQuantities([reservedOf(total.record), line.quantity]) },
        version: total.version + 1,
      });
    }
  }

  ports(now: Date): ReservationPorts<StoreWrite> {
    const inventory = new InventoryStore(TABLE);
    const stock = new StockStore(TABLE);
    const reservations = new ReservationsStore(TABLE);
    const pick = <T>(source: Map<string, T>, keys: Iterable<string>) =>
      new Map([...keys].flatMap((key) => (source.has(key) ? [[key, source.get(key)!] as const] : [])));
    const items = [...this.items.values()];
    const locations = [...this.locations.values()];
    return {
      reads: {
        references: async (_organizationId, wanted) => ({
          itemsBySku: new Map(items.filter((item) => wanted.skus.includes(item.sku)).map((item) => [item.sku, item])),
          itemsById: pick(this.items, wanted.itemIds),
          locationsByCode: new Map(locations.filter((location) => wanted.codes.includes(location.code)).map((location) => [location.code, location])),
          locationsById: pick(this.locations, wanted.locationIds),
          claims: new Map(),
        }),
        stock: async (_organizationId, wanted) => ({
          records: pick(this.records, wanted.recordKeys),
          totals: pick(this.totals, wanted.itemIds),
          claims: new Map(),
        }),
      },
      stock: {
        getByNaturalKeys: async (_organizationId, entity, keys) =>
          entity === 'stock-record' ? pick(this.records, keys) : entity === 'item-stock' ? pick(this.totals, keys) : new Map(),
        getItemsByIds: async (_organizationId, ids) => pick(this.items, ids),
        stockRecordsAt: async (_organizationId, places) =>
          [...this.records.values()]
            .map(({ record }) => record)
            .filter((record) => places.some((place) => place.itemId === record.itemId && place.locationId === record.locationId)),
        writesOf: (organizationId, write) => stockWritesOf(inventory, stock, organizationId, write),
      },
      reservations: {
        get: async (_organizationId, id) => this.reservations.get(id),
        idOfReference: async () => undefined,
        createWrites: (organizationId, reservation, progress) => reservations.createWrites(organizationId, reservation, progress),
        updateWrite: (organizationId, reservation, version, progress) => reservations.updateWrite(organizationId, reservation, version, progress),
        unchangedWrite: (organizationId, id, version) => reservations.unchangedWrite(organizationId, id, version),
        deleteWrites: (organizationId, reservation, version) => reservations.deleteWrites(organizationId, reservation, version),
      },
      beforeImages: new ReservationBeforeImagesStore(TABLE),
      clock: () => now,
    };
  }
}

/** The actions the writer's one transaction takes for the plan of a write route (lib/platform/dynamo/transaction-writer.ts). */
export function transactionActions(organizationId: string, plan: CommandPlan<unknown, StoreWrite>): number {
  const eventItems = plan.events.length === 0 ? 0 : 1 + batchLengths(plan.events.map((event) => draftEventBytes(event, organizationId))).length;
  return plan.writes.length + eventItems + (plan.audit ? 1 : 0) + 1;
}
