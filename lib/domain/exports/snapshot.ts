import type { StoredEvent } from '../events/read-feed.ts';
import type { Item } from '../inventory/item.ts';
import type { StockRecord } from '../inventory/stock.ts';

/**
 * Exact snapshots (docs/architecture.md "Exports"). An export records the
 * organization's committed event sequence S when it starts (`asOfEventId` is event S). Records
 * are read live, page by page, while writes go on; a record read after a change committed after S
 * is rolled back to its state at S with the before-images the events carry:
 *   - `stock.changed` after S: the first one's `previousQuantity` is the quantity at S;
 *   - `item.created` after S: the item did not exist at S and is left out;
 *   - `item.updated` after S: each field takes the `previous` value of the first update after S
 *     that changed it.
 * A page is rolled back against the events S+1..T, where T is read AFTER the page: every change
 * the page reflects committed with its event in one transaction, so its event is at most T.
 */

export interface SnapshotEvents {
  lastSequence(organizationId: string): Promise<number>;
  /** Events from `fromSequence` on, at most `maxItems`, in sequence order. */
  readFrom(organizationId: string, fromSequence: number, maxItems: number): Promise<StoredEvent[]>;
}

const EVENTS_PER_READ = 500;

/** Calls `visit` for each event after `asOfSequence`, up to the sequence committed now. */
async function eventsAfter(events: SnapshotEvents, organizationId: string, asOfSequence: number, visit: (event: StoredEvent) => void): Promise<void> {
  const upTo = await events.lastSequence(organizationId);
  let next = asOfSequence + 1;
  while (next <= upTo) {
    const batch = await events.readFrom(organizationId, next, Math.min(EVENTS_PER_READ, upTo - next + 1));
    if (batch.length === 0) break;
    for (const event of batch) if (event.sequence <= upTo) visit(event);
    next = batch[batch.length - 1]!.sequence + 1;
  }
}

export interface StockAtSnapshot {
  record: StockRecord;
  /** The on-hand quantity at S. */
  quantity: number;
  /** The record changed after S (its `updatedAt` is not the one at S). */
  rolledBack: boolean;
}

/** The page's stock records as they were at S; a record whose quantity at S was 0 and changed since (it may not have existed) is left out. */
export async function stockAtSnapshot(events: SnapshotEvents, organizationId: string, asOfSequence: number, records: readonly StockRecord[]): Promise<StockAtSnapshot[]> {
  const firstPrevious = new Map<string, number>();
  const ids = new Set(records.map((record) => record.id));
  await eventsAfter(events, organizationId, asOfSequence, (event) => {
    if (event.envelope.type !== 'stock.changed') return;
    const data = event.envelope.data as { stockRecordId?: string; previousQuantity?: number };
    if (data.stockRecordId !== undefined && ids.has(data.stockRecordId) && !firstPrevious.has(data.stockRecordId) && typeof data.previousQuantity === 'number') {
      firstPrevious.set(data.stockRecordId, data.previousQuantity);
    }
  });
  const result: StockAtSnapshot[] = [];
  for (const record of records) {
    const previous = firstPrevious.get(record.id);
    if (previous === undefined) result.push({ record, quantity: record.onHand, rolledBack: false });
    else if (previous !== 0) result.push({ record, quantity: previous, rolledBack: true });
  }
  return result;
}

type ItemFields = Partial<Pick<Item, 'name' | 'unit' | 'description' | 'category' | 'barcode' | 'reorderPoint' | 'trackingMode'>>;

/** The page's items as they were at S; items created after S are left out. */
export async function itemsAtSnapshot(events: SnapshotEvents, organizationId: string, asOfSequence: number, items: readonly Item[]): Promise<Item[]> {
  const ids = new Set(items.map((item) => item.id));
  const createdAfter = new Set<string>();
  const before = new Map<string, ItemFields>();
  await eventsAfter(events, organizationId, asOfSequence, (event) => {
    const data = event.envelope.data as { item?: { id?: string }; previous?: ItemFields };
    const id = data.item?.id;
    if (id === undefined || !ids.has(id)) return;
    if (event.envelope.type === 'item.created') createdAfter.add(id);
    if (event.envelope.type === 'item.updated' && data.previous) {
      const fields = before.get(id) ?? {};
      // The first update after S that changed a field holds its value at S.
      for (const [field, value] of Object.entries(data.previous)) if (!(field in fields)) (fields as Record<string, unknown>)[field] = value;
      before.set(id, fields);
    }
  });
  return items.filter((item) => !createdAfter.has(item.id)).map((item) => ({ ...item, ...before.get(item.id) }));
}
