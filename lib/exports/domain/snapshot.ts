import type { StoredEvent } from '../../events/index.ts';
import type { Item } from '../../inventory/index.ts';
import { reservedOf, type StockRecord } from '../../inventory/index.ts';
import { sleep as pause } from '../../platform/core/backoff.ts';

/**
 * Exact snapshots (docs/exports.md "Snapshots", docs/architecture.md "Exports"). An export records
 * the organization's committed event sequence S when it starts (`asOfEventId` is event S). Records
 * are read live, page by page, while writes go on; a record read after a change committed after S
 * is rolled back to its state at S with the before-images the events carry:
 *   - `stock.changed` after S: the first one's `previousQuantity` and `previousUpdatedAt` are the
 *     record's quantity and `updatedAt` at S; a `previousUpdatedAt` of null says the record did
 *     not exist at S (that change created it), and it is left out. Its `reserved` at S is the
 *     `previousReserved` of the first one after S that carries it; an event without it (written
 *     before reservations, or by a writer that never changes what is reserved) changed nothing
 *     reserved, so a record none of whose changes after S carries it has the `reserved` it has now;
 *   - `item.created` after S: the item did not exist at S and is left out;
 *   - `item.updated` after S: each field takes the `previous` value of the first update after S
 *     that changed it;
 *   - a reservation changed after S: every transaction that writes a reservation moves stock and
 *     emits `stock.changed` with its `reservationId`, at the `occurredAt` that is the new
 *     version's `updatedAt` (its own for each version of one reservation). The first such event
 *     after S names the first change after S: the creation when it is the reservation's
 *     `createdAt` (left out), otherwise a change whose stored before-image is the reservation at S
 *     (lib/exports/domain/reservation-rows.ts).
 * A page is rolled back against the events S+1..T, where T is read AFTER the page: every change
 * the page reflects committed with its event in one transaction, so its event is at most T.
 *
 * The events after S are read once per invocation: a `SnapshotRollback` keeps, for each record
 * changed after S, only its before-image at S, and reads just the events committed since its last
 * look before each page (docs/exports.md "Guarantees"). Its memory grows with the records changed
 * during the export, not with the events or the pages.
 */

export interface SnapshotEvents {
  lastSequence(organizationId: string): Promise<number>;
  /** Events from `fromSequence` on, at most `maxItems`, in sequence order. */
  readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEvent[]>;
}

const EVENTS_PER_READ = 500;
/** The counter can show a transaction committed a moment before its events can be read (docs/events.md "How events are stored"). */
const MISSING_EVENT_ATTEMPTS = 5;
const MISSING_EVENT_PAUSE_MS = 20;

export interface StockAtSnapshot {
  record: StockRecord;
  /** The on-hand quantity at S. */
  quantity: number;
  /** What reservations held at S (0 for a record that has never held any). */
  reserved: number;
  /** `updatedAt` at S; null only when an event older than its before-image changed the record after S. */
  updatedAt: string | null;
}

/** A stock record's state at S, from the first `stock.changed` after S. */
interface StockBefore {
  quantity: number;
  /** null: the record did not exist at S; undefined: the event predates `previousUpdatedAt`. */
  updatedAt: string | null | undefined;
}

type ItemFields = Partial<Pick<Item, 'name' | 'unit' | 'description' | 'category' | 'barcode' | 'reorderPoint' | 'trackingMode'>>;

export class SnapshotRollback {
  /** Every event up to this sequence has been read into the before-images. */
  private readUpTo: number;
  private readonly stockBefore = new Map<string, StockBefore>();
  /** `reserved` at S of each record a change after S told it of (`previousReserved`). */
  private readonly reservedBefore = new Map<string, number>();
  private readonly itemsCreatedAfter = new Set<string>();
  /** The `occurredAt` of the first `stock.changed` after S of each reservation that changed since. */
  private readonly reservationsChangedAt = new Map<string, string>();
  private readonly itemFieldsBefore = new Map<string, ItemFields>();

  constructor(
    private readonly events: SnapshotEvents,
    private readonly organizationId: string,
    asOfSequence: number,
  ) {
    this.readUpTo = asOfSequence;
  }

  /** Reads the events committed since the last look (none when nothing committed): call it AFTER reading a page. */
  async catchUp(): Promise<void> {
    const upTo = await this.events.lastSequence(this.organizationId);
    let attempts = 0;
    while (this.readUpTo < upTo) {
      const next = this.readUpTo + 1;
      const batch = await this.events.readFrom(this.organizationId, next, Math.min(EVENTS_PER_READ, upTo - this.readUpTo));
      const inOrder = batch.length > 0 && batch[0]!.sequence === next;
      if (!inOrder) {
        // A committed event not readable yet: missing it would leave a change unrolled.
        attempts += 1;
        if (attempts >= MISSING_EVENT_ATTEMPTS) throw new Error(`Event ${next} of ${this.organizationId} is committed but could not be read`);
        await pause(MISSING_EVENT_PAUSE_MS);
        continue;
      }
      attempts = 0;
      for (const event of batch) {
        if (event.sequence !== this.readUpTo + 1 || event.sequence > upTo) break;
        this.visit(event);
        this.readUpTo = event.sequence;
      }
    }
  }

  private visit(event: StoredEvent): void {
    const { type } = event.envelope;
    if (type === 'stock.changed') {
      const data = event.envelope.data as {
        stockRecordId?: string;
        previousQuantity?: number;
        previousUpdatedAt?: string | null;
        previousReserved?: number;
        reservationId?: string | null;
      };
      if (typeof data.reservationId === 'string' && !this.reservationsChangedAt.has(data.reservationId))
        this.reservationsChangedAt.set(data.reservationId, event.envelope.occurredAt);
      if (data.stockRecordId === undefined) return;
      if (!this.stockBefore.has(data.stockRecordId) && typeof data.previousQuantity === 'number') {
        this.stockBefore.set(data.stockRecordId, { quantity: data.previousQuantity, updatedAt: data.previousUpdatedAt });
      }
      if (!this.reservedBefore.has(data.stockRecordId) && typeof data.previousReserved === 'number')
        this.reservedBefore.set(data.stockRecordId, data.previousReserved);
      return;
    }
    if (type !== 'item.created' && type !== 'item.updated') return;
    const data = event.envelope.data as { item?: { id?: string }; previous?: ItemFields };
    const id = data.item?.id;
    if (id === undefined) return;
    if (type === 'item.created') this.itemsCreatedAfter.add(id);
    if (type === 'item.updated' && data.previous) {
      const fields = this.itemFieldsBefore.get(id) ?? {};
      // The first update after S that changed a field holds its value at S.
      for (const [field, value] of Object.entries(data.previous)) if (!(field in fields)) (fields as Record<string, unknown>)[field] = value;
      this.itemFieldsBefore.set(id, fields);
    }
  }

  /**
   * The page's stock records as they were at S, each with its quantity, `reserved` and
   * `updatedAt` then (a record at 0 at S included); a record created after S is left out. An
   * event committed before `previousUpdatedAt` existed cannot tell a record at 0 from one created
   * after S: such a record is left out, and a rolled-back one has no `updatedAt`.
   */
  stock(records: readonly StockRecord[]): StockAtSnapshot[] {
    const result: StockAtSnapshot[] = [];
    for (const record of records) {
      const before = this.stockBefore.get(record.id);
      const reserved = this.reservedBefore.get(record.id) ?? reservedOf(record);
      if (before === undefined) result.push({ record, quantity: record.onHand, reserved, updatedAt: record.updatedAt });
      else if (before.updatedAt !== undefined && before.updatedAt !== null)
        result.push({ record, quantity: before.quantity, reserved, updatedAt: before.updatedAt });
      else if (before.updatedAt === undefined && before.quantity !== 0) result.push({ record, quantity: before.quantity, reserved, updatedAt: null });
    }
    return result;
  }

  /** When the reservation first changed after S (the new version's `updatedAt`); undefined when it has not changed since. */
  reservationChangedAt(reservationId: string): string | undefined {
    return this.reservationsChangedAt.get(reservationId);
  }

  /** The page's items as they were at S; items created after S are left out. */
  items(items: readonly Item[]): Item[] {
    return items.filter((item) => !this.itemsCreatedAfter.has(item.id)).map((item) => ({ ...item, ...this.itemFieldsBefore.get(item.id) }));
  }
}

/** One page's stock records at S, on a fresh read of the events (a rollback of its own). */
export async function stockAtSnapshot(
  events: SnapshotEvents,
  organizationId: string,
  asOfSequence: number,
  records: readonly StockRecord[],
): Promise<StockAtSnapshot[]> {
  const rollback = new SnapshotRollback(events, organizationId, asOfSequence);
  await rollback.catchUp();
  return rollback.stock(records);
}

/** One page's items at S, on a fresh read of the events (a rollback of its own). */
export async function itemsAtSnapshot(events: SnapshotEvents, organizationId: string, asOfSequence: number, items: readonly Item[]): Promise<Item[]> {
  const rollback = new SnapshotRollback(events, organizationId, asOfSequence);
  await rollback.catchUp();
  return rollback.items(items);
}
