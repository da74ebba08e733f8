import { ValidationError, type FieldError } from '../../../platform/core/errors.ts';
import { newId } from '../../../platform/core/ids.ts';
import type { AuditKind } from '../../../platform/audit/types.ts';
import type { Item } from '../../../inventory/index.ts';
import type { Location } from '../../../inventory/index.ts';
import { ARCHIVED_CODES, ArchivedError, newRecordId, type VersionedRecord } from '../../../inventory/index.ts';
import { availableOf, newMovementId, reservedOf, stockRecordKey, type StockRecord } from '../../../inventory/index.ts';
import type { EventDraft } from '../../../platform/events/types.ts';
import type { CommandPlan } from '../../../platform/write/ports.ts';
import { lotError, type StockDecision } from '../decision.ts';
import { StockLedger, type StockSide, type StockWrite } from '../ledger.ts';
import { documentKey, type ItemStock, type StockEntry, type StockDocument } from '../records.ts';
import { StockState, type StockReads } from '../state.ts';
import type { StockChange, StockChangeKind, StockChangeLine } from './change.ts';
import { AlreadyAppliedError, InsufficientStockError, QuantityStaleError, type ShortLine, type StaleLine } from './errors.ts';
import { resolveReferences, wantedReferences, type Reference, type ResolvedReferences } from './references.ts';

/**
 * A stock change over JSON (docs/inventory.md "Writing stock over JSON"): 1 to 20 lines of one
 * kind, each decided by the same code as an import row of that kind on a StockLedger, claimed
 * under the same natural key, all lines or none, in one transaction.
 *
 * Compare-and-set: a line's `expectedQuantity` (null: not checked) is compared with its first
 * record's stored on-hand as read (0 when there is no record yet; lines on one record compare with
 * the same stored value); record writes are conditioned on the version read, so a change
 * committed in between cancels the transaction and the request is decided again on what is
 * stored then (commit.ts).
 */

/** A claim or a stock write, as the store turns it into its own writes. */
export type StockChangeWrite = StockWrite | { op: 'claim-entry'; entry: StockEntry };

export interface StockChangePorts<Write> {
  stock: StockReads & {
    /** Claims of applied natural keys, by key; unknown keys are absent. */
    getByNaturalKeys(
      organizationId: string,
      entity: 'stock-record' | 'item-stock' | 'stock-document' | 'stock-entry',
      naturalKeys: Iterable<string>,
    ): Promise<Map<string, VersionedRecord<unknown>>>;
    writesOf(organizationId: string, write: StockChangeWrite): Write[];
  };
  reads: StockChangeReads;
  changes: { createWrite(organizationId: string, change: StockChange): Write };
  /** The writes a change's transaction may hold beside the writer's own (sequence counter, event batch, audit entry, idempotency record). */
  maxWrites: number;
  clock?: () => Date;
}

/** Items and locations by natural key or id, and claims of applied natural keys by key; unknown ones are absent. */
export interface ReferencesRead {
  itemsBySku: Map<string, Item>;
  itemsById: Map<string, Item>;
  locationsByCode: Map<string, Location>;
  locationsById: Map<string, Location>;
  claims: Map<string, StockEntry>;
}

/** Stock records by natural key, item totals by item id and claims by key, as stored; unknown ones are absent. */
export interface StockRead {
  records: Map<string, VersionedRecord<StockRecord>>;
  totals: Map<string, VersionedRecord<ItemStock>>;
  claims: Map<string, StockEntry>;
}

/**
 * What a change reads before it is decided, in two batches (lib/stock/store/stock-change-reads.ts): the
 * items and locations its lines name, with the claims of the natural keys the body spells out;
 * then the stock records the lines change, their items' totals and the other claims.
 */
export interface StockChangeReads {
  references(
    organizationId: string,
    wanted: { skus: string[]; itemIds: string[]; codes: string[]; locationIds: string[]; claimKeys: string[] },
  ): Promise<ReferencesRead>;
  stock(organizationId: string, wanted: { recordKeys: string[]; itemIds: string[]; claimKeys: string[] }): Promise<StockRead>;
}

/**
 * The change's lines create more stock records than its transaction has room for (a creation
 * writes the record and its two list entries): create these first, at 0, then decide the change
 * again, which then only updates them (docs/inventory.md "Writing stock over JSON").
 */
export class RecordsFirstError extends Error {
  override name = 'RecordsFirstError';
  constructor(readonly records: StockRecord[]) {
    super(`Create ${records.length} stock records first`);
  }
}

/** Every line names its item and a lot; where it names its locations is up to its kind. */
export interface ChangeLineInput {
  sku?: string;
  itemId?: string;
  lot: string | null;
  expectedQuantity?: number | null;
}

/** A line as its kind plans it, once its item and locations are known. */
export interface PlannedLine {
  /** The stock records it changes, in the order the change lists them: the first is the one `expectedQuantity` is compared with. */
  sides: StockSide[];
  /** What an insufficient-stock refusal says was requested. */
  requested: number;
  decide(ledger: StockLedger, at: { rowNumber: number; now: string; jobId: string }): StockDecision;
}

/** What one kind of change brings to the command: its references, its plan of each line and its record of the request. */
export interface StockChangeKindSpec<Input extends { lines: ChangeLineInput[] }> {
  kind: StockChangeKind;
  audit: AuditKind;
  /** Receipts and counts gather their lines in a document, closed at the end of the change. */
  document?: StockDocument['type'];
  /** False for transfers, which leave their item's total as it is. */
  changesItemTotals: boolean;
  reference(input: Input): string;
  reason(input: Input): string | null;
  /** The locations a line names, each with where in the body. */
  locations(input: Input, index: number): Reference[];
  /** The natural key a line is claimed under, shared with the import kind, from its item's sku and its locations' codes. */
  claimKey(input: Input, line: Input['lines'][number], names: { sku: string; locationCodes: string[] }): string;
  plan(input: Input, line: Input['lines'][number], place: { item: Item; locations: Location[] }): PlannedLine;
  /** A rule of the kind a line breaks once its item and locations are known (beside the lot rules). */
  problem?(line: Input['lines'][number], place: { item: Item; locations: Location[] }, index: number): FieldError | undefined;
}

interface ResolvedLine {
  index: number;
  item: Item;
  claimKey: string;
  expectedQuantity: number | null;
  planned: PlannedLine;
  recordKeys: string[];
}

export class StockChangeCommand<Input extends { lines: ChangeLineInput[] }, Write> {
  constructor(
    private readonly ports: StockChangePorts<Write>,
    private readonly spec: StockChangeKindSpec<Input>,
  ) {}

  /** `precreated`: the records this change created first, at 0 (RecordsFirstError): their first `stock.changed` still says the change created them. */
  async apply(organizationId: string, input: Input, precreated: ReadonlySet<string> = new Set()): Promise<CommandPlan<StockChange, Write>> {
    const { spec, ports } = this;
    const now = (ports.clock?.() ?? new Date()).toISOString();
    const id = newId('chg');
    const reference = spec.reference(input);
    const itemReferences = input.lines.map((line, index) => referenceOf(line.sku, line.itemId, `/lines/${index}/${line.sku === undefined ? 'itemId' : 'sku'}`));
    const locationReferences = input.lines.map((_, index) => spec.locations(input, index));
    // The claims of lines that name their item and locations by natural key are known from the body: read with the references.
    const spelledClaims = new Map(
      input.lines.flatMap((line, index) => {
        const locations = locationReferences[index] ?? [];
        if (line.sku === undefined || locations.some((location) => location.by !== 'key')) return [];
        return [[index, spec.claimKey(input, line, { sku: line.sku, locationCodes: locations.map((location) => location.value) })] as const];
      }),
    );
    const found = await ports.reads.references(organizationId, {
      ...wantedReferences(itemReferences, locationReferences.flat()),
      claimKeys: [...spelledClaims.values()],
    });
    const lines = this.resolve(input, resolveReferences(found, itemReferences, locationReferences.flat()), itemReferences, locationReferences);
    const recordKeys = lines.flatMap((line) => line.recordKeys);
    const itemIds = spec.changesItemTotals ? lines.map((line) => line.item.id) : [];
    const stock = await ports.reads.stock(organizationId, {
      recordKeys,
      itemIds,
      claimKeys: lines.filter((line) => !spelledClaims.has(line.index)).map((line) => line.claimKey),
    });
    refuseApplied(lines, new Map([...found.claims, ...stock.claims]));
    const state = new StockState(
      ports.stock,
      organizationId,
      lines.map((line) => line.item),
      { totalsWithRecords: spec.changesItemTotals },
    );
    state.know({ stockRecords: recordKeys, itemIds }, stock);
    const document = spec.document && documentKey(id, spec.document, reference);
    // The change's own document: its key holds the change's new id, so nothing is stored under it.
    if (document) state.assumeAbsent({ documents: [document] });
    refuseStale(lines, state);

    const decide = () => decideLines(state, lines, { id, now, document });
    let decided = decide();
    // A decision that looked up stock not read yet is decided again once it is read.
    for (let round = 0; state.hasMisses() && round < 3; round += 1) {
      await state.readMisses();
      decided = decide();
    }
    const { ledger, unitWrites, changed, events, short, movementIds } = decided;
    if (short.length > 0) throw new InsufficientStockError(short);

    const change: StockChange = { id, kind: spec.kind, reference, reason: spec.reason(input), occurredAt: now, lines: changed };
    const claims: StockChangeWrite[] = [...movementIds].map(([key, ids]) => ({
      op: 'claim-entry',
      entry: { key, jobId: id, movementIds: ids, appliedAt: now },
    }));
    const stockWrites = [...unitWrites, ...ledger.flush(), ...claims];
    const writes = stockWrites.flatMap((write) => ports.stock.writesOf(organizationId, write));
    if (writes.length + 1 > ports.maxWrites) {
      const created = stockWrites.flatMap((write) => (write.op === 'create' ? [{ ...write.record, onHand: 0 }] : []));
      if (created.length > 0) throw new RecordsFirstError(created);
    }
    markCreatedByChange(events, precreated);
    const count = `${input.lines.length} line${input.lines.length === 1 ? '' : 's'}`;
    return {
      writes: [...writes, ports.changes.createWrite(organizationId, change)],
      audit: {
        kind: spec.audit,
        target: { kind: 'stock-change', id },
        summary: `Stock ${spec.audit.slice('stock.'.length)}: ${reference} (${count})`,
        changes: [],
      },
      events,
      result: change,
    };
  }

  /** The lines with their item, locations and keys; lot-rule and kind-rule breaches are one 400. */
  private resolve(input: Input, resolved: ResolvedReferences, itemReferences: Reference[], locationReferences: Reference[][]): ResolvedLine[] {
    const errors: FieldError[] = [];
    const lines = input.lines.map((line, index): ResolvedLine => {
      const item = resolved.item(itemReferences[index] as Reference);
      const locations = (locationReferences[index] ?? []).map((location) => resolved.location(location));
      const lotProblem = lotError(item, line.lot, 'lot', index);
      if (lotProblem) errors.push({ location: 'body', pointer: `/lines/${index}/lot`, code: lotProblem.code, message: lotProblem.message });
      const problem = this.spec.problem?.(line, { item, locations }, index);
      if (problem) errors.push(problem);
      const planned = this.spec.plan(input, line, { item, locations });
      return {
        index,
        item,
        claimKey: this.spec.claimKey(input, line, { sku: item.sku, locationCodes: locations.map((location) => location.code) }),
        expectedQuantity: line.expectedQuantity ?? null,
        planned,
        recordKeys: planned.sides.map((side) => stockRecordKey(item.id, side.location.id, side.lot)),
      };
    });
    if (errors.length > 0) throw new ValidationError(errors, 'Lines break the lot rules of their items or the rules of the change; see `errors`.');
    return lines;
  }
}

/** Lines whose natural key a request or an import applied before: all named at once. */
function refuseApplied(lines: ResolvedLine[], claims: Map<string, StockEntry>): void {
  const applied = lines.flatMap((line) => {
    const claim = claims.get(line.claimKey);
    return claim ? [{ line: line.index, appliedBy: claim.jobId }] : [];
  });
  if (applied.length > 0) throw new AlreadyAppliedError(applied);
}

/** Each line on the ledger in request order: the records it changed, their events, the short lines and the movements per claim; then the change's document is closed. */
function decideLines(state: StockState, lines: ResolvedLine[], change: { id: string; now: string; document: string | undefined }) {
  const ledger = new StockLedger(state, { stockRecord: () => newRecordId('stock-record'), movement: newMovementId });
  const changed: StockChangeLine[] = [];
  const events: EventDraft[] = [];
  const short: ShortLine[] = [];
  const movementIds = new Map<string, string[]>();
  /** What the lines wrote themselves (their movements); the ledger's flush adds the records, totals and document. */
  const unitWrites: StockWrite[] = [];
  for (const line of lines) {
    const { item, planned, index } = line;
    ledger.begin();
    const before = planned.sides.map((side) => ledger.onHand(item, side));
    const firstAvailable = planned.sides[0] ? ledger.available(item, planned.sides[0]) : 0;
    const decision = planned.decide(ledger, { rowNumber: index, now: change.now, jobId: change.id });
    if (!decision.ok) {
      ledger.rollback();
      const { refusal } = decision;
      // Stock in at an archived item or location is a 409 of the whole change, naming the line.
      if (refusal.code === ARCHIVED_CODES.item || refusal.code === ARCHIVED_CODES.location)
        throw new ArchivedError(refusal.code === ARCHIVED_CODES.item ? 'item' : 'location', refusal.value ?? '', [index]);
      if (refusal.code !== 'insufficient-stock')
        throw new ValidationError(
          [{ location: 'body', pointer: `/lines/${index}/${refusal.column}`, code: refusal.code, message: refusal.message }],
          refusal.message,
        );
      short.push({
        line: index,
        stockRecordId: state.stockRecord(line.recordKeys[0] ?? '')?.record.id ?? null,
        available: firstAvailable,
        requested: planned.requested,
      });
      continue;
    }
    const unit = ledger.endUnit();
    unitWrites.push(...unit.writes);
    events.push(...unit.events);
    movementIds.set(line.claimKey, [...(movementIds.get(line.claimKey) ?? []), ...decision.movementIds]);
    planned.sides.forEach((side, sideIndex) => {
      const after = ledger.recordAt(item, side);
      const previous = before[sideIndex] ?? 0;
      changed.push({
        line: index,
        movementId: decision.movementIds[0] ?? null,
        stockRecordId: after.id,
        itemId: item.id,
        sku: item.sku,
        locationId: side.location.id,
        locationCode: side.location.code,
        lot: side.lot,
        previousQuantity: previous,
        quantity: after.onHand,
        delta: after.onHand - previous,
        reserved: reservedOf(after),
        available: availableOf(after),
      });
    });
  }
  if (change.document && short.length === 0) {
    ledger.begin();
    ledger.closeDocument(change.document, change.now);
    const unit = ledger.endUnit();
    unitWrites.push(...unit.writes);
    events.push(...unit.events);
  }
  return { ledger, unitWrites, changed, events, short, movementIds };
}

/** The first `stock.changed` of each record the change created first says it created it (no state before), as when a change creates its record itself. */
function markCreatedByChange(events: EventDraft[], precreated: ReadonlySet<string>): void {
  const seen = new Set<string>();
  for (const event of events) {
    if (event.type !== 'stock.changed') continue;
    const data = event.data as { stockRecordId: string; previousUpdatedAt?: string | null };
    if (!precreated.has(data.stockRecordId) || seen.has(data.stockRecordId)) continue;
    seen.add(data.stockRecordId);
    data.previousUpdatedAt = null;
  }
}

/** An item or location as a line names it: exactly one of its natural key and its id (the contract checks that). */
export function referenceOf(key: string | undefined, id: string | undefined, pointer: string): Reference {
  if (key !== undefined) return { by: 'key', value: key, pointer };
  if (id !== undefined) return { by: 'id', value: id, pointer };
  throw new Error(`${pointer}: neither a natural key nor an id`);
}

/** Every line whose first record is not at the quantity the client expects, all at once. */
function refuseStale(lines: ResolvedLine[], state: StockState): void {
  const stale: StaleLine[] = [];
  for (const line of lines) {
    if (line.expectedQuantity === null) continue;
    const stored = state.stockRecord(line.recordKeys[0] ?? '')?.record;
    const current = stored?.onHand ?? 0;
    if (current !== line.expectedQuantity)
      stale.push({ line: line.index, stockRecordId: stored?.id ?? null, expectedQuantity: line.expectedQuantity, currentQuantity: current });
  }
  if (stale.length > 0) throw new QuantityStaleError(stale);
}
