// One piece: records, totals, documents and the reads a chunk decides on are one ledger (see below).
import type { EventDraft } from '../../platform/events/types.ts';
import type { Item, TrackingMode } from '../../inventory/index.ts';
import type { Location } from '../../inventory/index.ts';
import type { VersionedRecord } from '../../inventory/index.ts';
import { STORED_ENTRIES_PER_WRITE, archivedOf } from '../../inventory/index.ts';
import {
  availableOf,
  isMovementTime,
  reservedOf,
  stockRecordKey,
  sumQuantities,
  type MovementLeg,
  type MovementRecord,
  type StockRecord,
} from '../../inventory/index.ts';
import { documentEvent } from './documents.ts';
import { MAX_ON_HAND, type ItemStock, type StockDocument } from './records.ts';
import type { LedgerIds, MoveInput, MoveResult, StockBase, StockSide, StockWrite } from './ledger-types.ts';

export type { LedgerIds, MoveInput, MoveResult, StockBase, StockSide, StockWrite } from './ledger-types.ts';

/**
 * The stock a chunk of import rows (or one JSON stock change, reservation or build) works on
 * (docs/inventory.md "The stock model"). One piece: records, totals, documents and the reads a
 * decision rests on are rolled back and flushed together, so they stay in one class. Rows are
 * decided one after the other against it, so a row sees what earlier rows of the chunk did; a
 * unit that fails or does not fit the transaction is rolled back. At the end the chunk writes
 * each record it changed ONCE, conditioned on the version it was read at: a transaction may name
 * an item only once, and a concurrent writer's change makes the chunk be decided again.
 *
 * A decision may also rest on stock it only read (a count that matched, a row refused for lack of
 * stock): each such record is checked, unchanged, in the same transaction, so a concurrent
 * change to it makes the chunk be decided again too.
 *
 * Each movement is ONE write, the movement with its legs (one signed change per stock record it
 * touches; docs/inventory.md "The stock model"), and emits, in order,
 * `movement.created`, `stock.changed` per leg, and `low-stock` when the item's on-hand across
 * locations crosses from at least its reorder point to below it. A transfer leaves that on-hand
 * as it is, so it neither reads nor writes the item's total.
 */

/** Receipt order: the record that first received stock first (its `createdAt`), then by id. */
export function inReceiptOrder(a: StockRecord, b: StockRecord): number {
  return a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id);
}

interface Tracked<T> {
  value: T;
  /** The stored version it was read at; undefined when the chunk creates it. */
  version: number | undefined;
}

/** An item total the chunk writes, with the tracking mode its decisions read the item at. */
interface TrackedTotal extends Tracked<ItemStock> {
  modeRead: TrackingMode;
}

interface Snapshot {
  records: Map<string, Tracked<StockRecord>>;
  totals: Map<string, TrackedTotal>;
  documents: Map<string, Tracked<StockDocument>>;
}

export class StockLedger {
  private records = new Map<string, Tracked<StockRecord>>();
  private totals = new Map<string, TrackedTotal>();
  private documents = new Map<string, Tracked<StockDocument>>();
  /** Places with no stored record, with the id a record there gets. */
  private readonly unsaved = new Map<string, StockRecord>();
  /** Stored stock records the chunk's decisions read, with the version read (undefined: absent). */
  private reads = new Map<string, Tracked<StockRecord>>();
  private savedReads: Map<string, Tracked<StockRecord>> | undefined;
  /** Stored item totals the chunk's decisions read on their own (not through a movement), with the version read (undefined: absent). */
  private totalReads = new Map<string, number | undefined>();
  private savedTotalReads: Map<string, number | undefined> | undefined;
  /** BOMs the chunk's builds were decided on, with the version read. */
  private bomReads = new Map<string, number>();
  private savedBomReads: Map<string, number> | undefined;
  private saved: Snapshot | undefined;
  private unitEvents: EventDraft[] = [];
  private unitWrites: StockWrite[] = [];

  constructor(
    private readonly base: StockBase,
    private readonly ids: LedgerIds,
  ) {}

  /** Starts a unit: what it does can be rolled back until `endUnit`. */
  begin(): void {
    this.saved = { records: new Map(this.records), totals: new Map(this.totals), documents: new Map(this.documents) };
    this.savedReads = new Map(this.reads);
    this.savedTotalReads = new Map(this.totalReads);
    this.savedBomReads = new Map(this.bomReads);
    this.unitEvents = [];
    this.unitWrites = [];
  }

  /**
   * Undoes what the current unit changed, and keeps it open with what it read: a unit refused on
   * what it read (too little stock) holds only while that stays as read.
   */
  discardChanges(): void {
    if (!this.saved) throw new Error('discardChanges without begin');
    this.records = new Map(this.saved.records);
    this.totals = new Map(this.saved.totals);
    this.documents = new Map(this.saved.documents);
    this.unitEvents = [];
    this.unitWrites = [];
  }

  /** Undoes the current unit, reads included. */
  rollback(): void {
    if (!this.saved) throw new Error('rollback without begin');
    ({ records: this.records, totals: this.totals, documents: this.documents } = this.saved);
    if (this.savedReads) this.reads = this.savedReads;
    if (this.savedTotalReads) this.totalReads = this.savedTotalReads;
    if (this.savedBomReads) this.bomReads = this.savedBomReads;
    this.saved = undefined;
    this.unitEvents = [];
    this.unitWrites = [];
  }

  /** The current unit's ledger entries and events so far, in order. */
  peekUnit(): { writes: readonly StockWrite[]; events: readonly EventDraft[] } {
    return { writes: this.unitWrites, events: this.unitEvents };
  }

  /** Keeps the current unit; its ledger entries and events, in order. */
  endUnit(): { writes: StockWrite[]; events: EventDraft[] } {
    const unit = { writes: this.unitWrites, events: this.unitEvents };
    this.saved = undefined;
    this.unitEvents = [];
    this.unitWrites = [];
    return unit;
  }

  /** The stock record at a place as it stands now (unsaved when nothing was ever there). */
  recordAt(item: Item, side: StockSide): StockRecord {
    return this.trackedRecord(item, side).value;
  }

  onHand(item: Item, side: StockSide): number {
    return this.recordAt(item, side).onHand;
  }

  /** On-hand less what reservations hold (docs/inventory.md "Reservations and available stock"): what a movement out or a new reservation may take. */
  available(item: Item, side: StockSide): number {
    return availableOf(this.recordAt(item, side));
  }

  /**
   * The item's on-hand across every location and lot, as it stands now. A decision that rests on
   * it (e.g. an item's tracking mode changes only while it holds nothing) holds only while it
   * stays as read: the commit checks it unchanged when the chunk does not write it.
   */
  /**
   * The item's lots at the location that hold stock now, the record that first received stock
   * first (docs/inventory.md "builds"): the stored ones in receipt order, then those this chunk
   * created, in the order it created them. A lot at 0 is passed over without being read for the
   * commit to check, so lots drained long ago cost nothing.
   */
  lotsWithStockAt(item: Item, location: Location): string[] {
    const lots = [...(this.base.lotsAt(item.id, location.id) ?? [])];
    const atPlace = [...this.records.values()].filter(
      ({ value }) => value.itemId === item.id && value.locationId === location.id && value.lot !== null && !lots.includes(value.lot),
    );
    // The stored lots are those with stock as read; one at 0 then that this chunk stocked again takes its place in receipt order.
    const restocked = atPlace.filter(({ version }) => version !== undefined).map(({ value }) => value);
    if (restocked.length > 0) {
      const stored = lots.flatMap((lot) => this.base.stockRecord(stockRecordKey(item.id, location.id, lot))?.record ?? []);
      lots.splice(0, lots.length, ...[...stored, ...restocked].sort(inReceiptOrder).map((record) => record.lot as string));
    }
    for (const { value } of atPlace.filter(({ version }) => version === undefined)) lots.push(value.lot as string);
    return lots.filter((lot) => {
      const key = stockRecordKey(item.id, location.id, lot);
      return ((this.records.get(key)?.value ?? this.base.stockRecord(key)?.record)?.onHand ?? 0) > 0;
    });
  }

  /**
   * Notes that a decision rests on a BOM as read (its revision, not archived): the commit checks it
   * still at that version, so a BOM revised or archived meanwhile makes the chunk be decided again.
   */
  readBom(bomId: string, version: number): void {
    if (!this.bomReads.has(bomId)) this.bomReads.set(bomId, version);
  }

  /**
   * Writes the item's total back unchanged under a new version (docs/inventory.md "The stock
   * model"): a change of what the item's stock may be (its tracking mode) then conflicts with any
   * stock chunk decided on the item as it was, since that chunk writes the total at the version it
   * read, and that chunk is decided again on the item as it is now. A transfer, which writes no
   * total, needs no such guard: it moves stock the item holds, so a tracking change cannot commit
   * meanwhile without first changing the very records the transfer is conditioned on.
   */
  rewriteItemTotal(itemId: string, mode: { read: TrackingMode; after: TrackingMode }): void {
    this.itemTotal(itemId);
    this.setItemTotals(itemId, this.itemTotals(itemId), mode);
  }

  itemTotal(itemId: string): number {
    if (!this.totals.has(itemId) && !this.totalReads.has(itemId)) this.totalReads.set(itemId, this.base.itemStock(itemId)?.version);
    return this.itemTotals(itemId).onHand;
  }

  /**
   * Holds (`quantity` > 0) or lets go of (`quantity` < 0) stock at a place for a reservation
   * (docs/inventory.md "Reservations and available stock"): on-hand stays, `reserved` moves, and
   * `stock.changed` says so with `delta` 0 and no movement; the item's total moves with it, and
   * `low-stock` fires when its available crosses below the reorder point. A hold takes only what
   * is available.
   */
  hold(input: {
    item: Item;
    side: StockSide;
    quantity: number;
    reservationId: string;
    occurredAt: string;
  }): { ok: true; record: StockRecord } | { ok: false; reason: 'insufficient-stock'; available: number } {
    const { item, side, quantity } = input;
    if (quantity === 0) throw new Error('A hold moves a quantity other than 0');
    const available = this.available(item, side);
    if (quantity > 0 && available < quantity) return { ok: false, reason: 'insufficient-stock', available };
    const released = Math.max(quantity, -reservedOf(this.recordAt(item, side)));
    const record = this.applyLeg({ item, reason: null, reservationId: input.reservationId, occurredAt: input.occurredAt }, null, side, 0, released);
    const before = this.itemTotals(item.id);
    this.changeItemTotals(item, before, { onHand: before.onHand, reserved: Math.max(0, sumQuantities([before.reserved, released])) }, input.occurredAt);
    return { ok: true, record };
  }

  /** Records a movement, or says how much stock the `from` side has when it has less than `quantity`. */
  move(input: MoveInput): MoveResult {
    if (!(input.quantity > 0)) throw new Error(`A movement moves a positive quantity, not ${input.quantity}`);
    if (!isMovementTime(input.occurredAt)) throw new Error(`A movement occurs at an ISO 8601 UTC time in milliseconds from 1970 on, not '${input.occurredAt}'`);
    const { item, from, to } = input;
    if (from) {
      // A count sets on-hand to what was counted, even below what reservations hold; a shipment
      // takes what its reservation holds; everything else draws on what no reservation holds.
      const available = input.type === 'count' || input.reservationId !== undefined ? this.onHand(item, from) : this.available(item, from);
      if (available < input.quantity) return { ok: false, reason: 'insufficient-stock', available };
    }
    // An archived item or location takes no stock in; stock may still leave it.
    const archived = to ? archivedOf(item, to.location) : undefined;
    if (to && archived) return { ok: false, reason: 'archived', what: archived, name: archived === 'item' ? item.sku : to.location.code };
    // A transfer moves stock between locations and leaves the item's total as it is: it neither
    // writes nor checks the total (docs/inventory.md "Concurrency"), so concurrent transfers of
    // one item contend only on the stock records they move.
    const totalBefore = !(from && to) ? this.itemTotals(item.id) : undefined;
    if (
      to &&
      (sumQuantities([this.onHand(item, to), input.quantity]) > MAX_ON_HAND ||
        (totalBefore !== undefined && sumQuantities([totalBefore.onHand, input.quantity]) > MAX_ON_HAND))
    ) {
      return { ok: false, reason: 'over-limit', limit: MAX_ON_HAND };
    }
    const movementId = this.ids.movement(input.occurredAt);
    const { occurredAt, ...movement }: MovementRecord = {
      id: movementId,
      type: input.type,
      itemId: item.id,
      sku: item.sku,
      fromLocationId: from?.location.id ?? null,
      toLocationId: to?.location.id ?? null,
      quantity: input.quantity,
      lot: from?.lot ?? to?.lot ?? null,
      reference: input.reference,
      occurredAt: input.occurredAt,
    };
    this.unitEvents.push({ type: 'movement.created', occurredAt, data: { movement } });
    const sides: Array<[StockSide, number]> = [];
    if (from) sides.push([from, -input.quantity]);
    if (to) sides.push([to, input.quantity]);
    // A shipment takes its quantity out of on-hand and reserved together: available stays.
    const reservedDelta = (delta: number) => (input.reservationId !== undefined && delta < 0 ? delta : 0);
    const changed = sides.map(([side, delta]) => ({ record: this.applyLeg(input, movementId, side, delta, reservedDelta(delta)), quantity: delta }));
    const legs = changed.map(({ record, quantity }): MovementLeg => ({ stockRecordId: record.id, quantity }));
    this.unitWrites.push({ op: 'record-movement', movement: { ...movement, occurredAt }, legs });
    if (totalBefore !== undefined) {
      const deltas = sides.map(([, delta]) => delta);
      this.changeItemTotals(
        item,
        totalBefore,
        { onHand: sumQuantities([totalBefore.onHand, ...deltas]), reserved: sumQuantities([totalBefore.reserved, ...deltas.map(reservedDelta)]) },
        input.occurredAt,
      );
    }
    return { ok: true, movementId, ...(from ? { from: changed[0]?.record } : {}), ...(to ? { to: changed.at(-1)?.record } : {}) };
  }

  document(key: string): StockDocument | undefined {
    return (this.documents.get(key) ?? this.loadDocument(key))?.value;
  }

  putDocument(document: StockDocument): void {
    const known = this.documents.get(document.key) ?? this.loadDocument(document.key);
    this.documents.set(document.key, { value: document, version: known?.version });
  }

  /** Closes a document after the file's last row of it; its event when it has lines. */
  closeDocument(key: string, occurredAt: string): void {
    const document = this.document(key);
    if (!document || document.closed || document.lines.length === 0) return;
    this.putDocument({ ...document, closed: true });
    this.unitEvents.push(documentEvent(document, occurredAt));
  }

  /**
   * Storage actions the chunk's coalesced writes take so far: a stock record's as
   * STORED_ENTRIES_PER_WRITE counts them (a new one's by-item list entry claims its key), a new
   * document's with its claim. A movement is not among them: it is one write of its unit
   * (`peekUnit`), one action however many legs it has, which the pipeline counts with the unit's
   * writes.
   */
  pendingActions(): number {
    let actions = this.totals.size + this.readOnly().length + this.totalsReadOnly().length + this.bomReads.size;
    const perRecord = STORED_ENTRIES_PER_WRITE['stock-record'];
    for (const [key, { value, version }] of this.records) {
      actions += version === undefined ? perRecord.create : perRecord.update;
      // A lot that comes to hold stock is put among its place's stocked lots (lib/inventory/store/stocked-lots.ts).
      if (value.lot !== null && this.onHandRead(key) <= 0 && value.onHand > 0) actions += 1;
    }
    for (const { version } of this.documents.values()) actions += version === undefined ? 2 : 1;
    return actions;
  }

  /** A size estimate of the coalesced writes (documents carry all their lines). */
  pendingBytes(): number {
    let bytes = 512 * (this.records.size + this.totals.size + this.readOnly().length);
    for (const { value } of this.documents.values()) bytes += 1024 + value.linesBytes;
    return bytes;
  }

  /** The chunk's coalesced writes: every stock record, item total and document it changed. */
  flush(): StockWrite[] {
    const writes: StockWrite[] = [];
    for (const [key, { value, version }] of this.records) {
      writes.push(
        version === undefined
          ? { op: 'create', entity: 'stock-record', record: value }
          : { op: 'update', entity: 'stock-record', record: value, expectedVersion: version, previousOnHand: this.onHandRead(key) },
      );
    }
    for (const { value, version, modeRead } of this.totals.values())
      writes.push({ op: 'put-item-stock', itemStock: value, expectedVersion: version ?? null, trackingModeRead: modeRead });
    for (const { value, version } of this.changed(this.documents)) writes.push({ op: 'put-document', document: value, expectedVersion: version ?? null });
    for (const { value, version } of this.readOnly()) writes.push({ op: 'check-stock-record', record: value, expectedVersion: version ?? null });
    for (const [itemId, version] of this.totalsReadOnly()) writes.push({ op: 'check-item-stock', itemId, expectedVersion: version ?? null });
    for (const [bomId, version] of this.bomReads) writes.push({ op: 'check-bom', bomId, expectedVersion: version });
    return writes;
  }

  /** What the chunk's commit stored, with the versions it stored them at (the next chunk's base). */
  committed(): { records: Array<VersionedRecord<StockRecord>>; totals: Array<VersionedRecord<ItemStock>>; documents: Array<VersionedRecord<StockDocument>> } {
    const next = <T>(tracked: Tracked<T>) => ({ record: tracked.value, version: (tracked.version ?? 0) + 1 });
    return {
      records: this.changed(this.records).map(next),
      totals: this.changed(this.totals).map(next),
      documents: this.changed(this.documents).map(next),
    };
  }

  private applyLeg(
    input: Pick<MoveInput, 'item' | 'reason' | 'reservationId' | 'occurredAt'>,
    movementId: string | null,
    side: StockSide,
    delta: number,
    reservedDelta: number,
  ): StockRecord {
    const tracked = this.trackedRecord(input.item, side);
    const previous = tracked.value;
    const reserved = sumQuantities([reservedOf(previous), reservedDelta]);
    const record: StockRecord = {
      ...previous,
      // Set on every write, so a record stored before it carried them gains them.
      sku: input.item.sku,
      locationCode: side.location.code,
      onHand: sumQuantities([previous.onHand, delta]),
      ...(reserved !== 0 || previous.reserved !== undefined ? { reserved } : {}),
      createdAt: previous.createdAt === '' ? input.occurredAt : previous.createdAt,
      updatedAt: input.occurredAt,
    };
    this.records.set(stockRecordKey(input.item.id, side.location.id, side.lot), { value: record, version: tracked.version });
    this.unitEvents.push({
      type: 'stock.changed',
      occurredAt: input.occurredAt,
      data: {
        stockRecordId: record.id,
        itemId: input.item.id,
        sku: input.item.sku,
        locationId: side.location.id,
        locationCode: side.location.code,
        lot: side.lot,
        previousQuantity: previous.onHand,
        // The before-image exact export snapshots roll back to (docs/exports.md "Snapshots"); null: this change created the record.
        previousUpdatedAt: previous.updatedAt === '' ? null : previous.updatedAt,
        quantity: record.onHand,
        delta,
        previousReserved: reservedOf(previous),
        reserved,
        previousAvailable: availableOf(previous),
        available: availableOf(record),
        movementId,
        reservationId: input.reservationId ?? null,
        reason: input.reason ?? null,
      },
    });
    return record;
  }

  private trackedRecord(item: Item, side: StockSide): Tracked<StockRecord> {
    const key = stockRecordKey(item.id, side.location.id, side.lot);
    const known = this.records.get(key);
    if (known) return known;
    const stored = this.base.stockRecord(key);
    if (stored) {
      const read = { value: stored.record, version: stored.version };
      this.reads.set(key, read);
      return read;
    }
    // Nothing was ever there: a record with nothing on hand, stored only once a movement touches
    // it. Its id is kept for the chunk, so every look at the place names the same record.
    let unsaved = this.unsaved.get(key);
    if (!unsaved) {
      unsaved = {
        id: this.ids.stockRecord(),
        itemId: item.id,
        sku: item.sku,
        locationId: side.location.id,
        locationCode: side.location.code,
        lot: side.lot,
        onHand: 0,
        createdAt: '',
        updatedAt: '',
      };
      this.unsaved.set(key, unsaved);
    }
    const read = { value: unsaved, version: undefined };
    this.reads.set(key, read);
    return read;
  }

  private itemTotals(itemId: string): { onHand: number; reserved: number } {
    const total = this.totals.get(itemId)?.value ?? this.base.itemStock(itemId)?.record;
    return { onHand: total?.onHand ?? 0, reserved: total ? reservedOf(total) : 0 };
  }

  /** The item's totals after a change, and `low-stock` when its available crossed from at least its reorder point to below it. */
  private changeItemTotals(item: Item, before: { onHand: number; reserved: number }, after: { onHand: number; reserved: number }, occurredAt: string): void {
    this.setItemTotals(item.id, after, { read: item.trackingMode, after: item.trackingMode });
    const { reorderPoint } = item;
    const [availableBefore, availableAfter] = [availableOf(before), availableOf(after)];
    if (reorderPoint !== null && availableBefore >= reorderPoint && availableAfter < reorderPoint) {
      this.unitEvents.push({
        type: 'low-stock',
        occurredAt,
        data: { itemId: item.id, sku: item.sku, onHand: after.onHand, reserved: after.reserved, available: availableAfter, reorderPoint },
      });
    }
  }

  private setItemTotals(itemId: string, totals: { onHand: number; reserved: number }, mode: { read: TrackingMode; after: TrackingMode }): void {
    const known = this.totals.get(itemId);
    const version = known ? known.version : this.base.itemStock(itemId)?.version;
    const stored = known?.value ?? this.base.itemStock(itemId)?.record;
    const reserved = totals.reserved !== 0 || stored?.reserved !== undefined ? { reserved: totals.reserved } : {};
    this.totals.set(itemId, {
      value: { itemId, onHand: totals.onHand, ...reserved, trackingMode: mode.after },
      version,
      modeRead: known?.modeRead ?? mode.read,
    });
  }

  private loadDocument(key: string): Tracked<StockDocument> | undefined {
    const stored = this.base.document(key);
    return stored ? { value: stored.record, version: stored.version } : undefined;
  }

  /** A tracked record's on-hand as stored when the chunk first read it (0 when it creates it). */
  private onHandRead(key: string): number {
    return this.reads.get(key)?.value.onHand ?? 0;
  }

  /** Records read and not written: each is checked at commit. */
  private readOnly(): Tracked<StockRecord>[] {
    return [...this.reads].filter(([key]) => !this.records.has(key)).map(([, read]) => read);
  }

  /** Item totals read and not written: each is checked at commit. */
  private totalsReadOnly(): Array<[string, number | undefined]> {
    return [...this.totalReads].filter(([itemId]) => !this.totals.has(itemId));
  }

  /** Entries are tracked only once written, so every tracked entry is a change. */
  private changed<T>(map: Map<string, Tracked<T>>): Tracked<T>[] {
    return [...map.values()];
  }
}
