import { ValidationError, type FieldError } from '../../errors.ts';
import { newId } from '../../ids.ts';
import type { Item } from '../../inventory/item.ts';
import type { Location } from '../../inventory/location.ts';
import { newRecordId, type VersionedRecord } from '../../inventory/records.ts';
import { newMovementId, stockRecordKey, type StockRecord } from '../../inventory/stock.ts';
import type { EventDraft } from '../../events/types.ts';
import type { CommandPlan } from '../../write/ports.ts';
import { decideAdjustment } from '../adjustments.ts';
import { adjustmentClaimKey } from '../claims.ts';
import { lotError } from '../decision.ts';
import { StockLedger, type StockSide, type StockWrite } from '../ledger.ts';
import type { StockEntry } from '../records.ts';
import { StockState, type StockReads } from '../state.ts';
import type { StockChange, StockChangeLine } from './change.ts';
import { AlreadyAppliedError, InsufficientStockError, QuantityStaleError, type ShortLine, type StaleLine } from './errors.ts';
import { resolveReferences, type Reference, type ReferenceReads } from './references.ts';

/**
 * `POST /v1/stock/adjustments` (docs/inventory.md "Writing stock over JSON"): each line adds to or
 * takes from one stock record, decided by the same code as a `stock-adjustments` import row
 * (`decideAdjustment`) on a StockLedger, claimed under the same natural key, all lines or none.
 *
 * Compare-and-set: a line's `expectedQuantity` (null: not checked) is compared with its record's
 * stored on-hand as read (0 when there is no record yet; lines on one record compare with the same
 * stored value); the record's write is conditioned on the version read, so a change committed in
 * between cancels the transaction and the request is decided again on what is stored then.
 */

export interface AdjustmentLineInput {
  sku?: string;
  itemId?: string;
  locationCode?: string;
  locationId?: string;
  lot: string | null;
  quantityDelta: number;
  expectedQuantity: number | null;
}

export interface AdjustmentInput {
  reference: string;
  reason: string | null;
  lines: AdjustmentLineInput[];
}

/** A claim or a stock write, as the store turns it into its own writes. */
export type StockChangeWrite = StockWrite | { op: 'claim-entry'; entry: StockEntry };

export interface StockChangePorts<Write> {
  stock: StockReads & {
    /** Claims of applied natural keys, by key; unknown keys are absent. */
    getByNaturalKeys(organizationId: string, entity: 'stock-record' | 'item-stock' | 'stock-document' | 'stock-entry', naturalKeys: Iterable<string>): Promise<Map<string, VersionedRecord<unknown>>>;
    writesOf(organizationId: string, write: StockChangeWrite): Write[];
  };
  references: ReferenceReads;
  changes: { createWrite(organizationId: string, change: StockChange): Write };
  /** The writes a change's transaction may hold beside the writer's own (sequence counter, event batch, audit entry, idempotency record). */
  maxWrites: number;
  clock?: () => Date;
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

interface DecidedLine {
  index: number;
  input: AdjustmentLineInput;
  item: Item;
  location: Location;
  side: StockSide;
  recordKey: string;
  claimKey: string;
}

export class AdjustStockCommand<Write> {
  constructor(private readonly ports: StockChangePorts<Write>) {}

  /** `precreated`: the records this change created first, at 0 (RecordsFirstError): their first `stock.changed` still says the change created them. */
  async adjust(organizationId: string, input: AdjustmentInput, precreated: ReadonlySet<string> = new Set()): Promise<CommandPlan<StockChange, Write>> {
    const now = (this.ports.clock?.() ?? new Date()).toISOString();
    const id = newId('chg');
    const lines = await this.resolve(organizationId, input);
    await this.refuseApplied(organizationId, lines);
    const state = new StockState(this.ports.stock, organizationId, lines.map((line) => line.item));
    await state.read({ stockRecords: lines.map((line) => line.recordKey) });
    refuseStale(lines, state);

    let decided = decideLines(state, lines, input, now);
    // A decision that looked up stock not read yet is decided again once it is read.
    for (let round = 0; state.hasMisses() && round < 3; round += 1) {
      await state.readMisses();
      decided = decideLines(state, lines, input, now);
    }
    const { ledger, unitWrites, changed, events, short, movementIds } = decided;
    if (short.length > 0) throw new InsufficientStockError(short);

    const change: StockChange = { id, kind: 'adjustment', reference: input.reference, reason: input.reason, occurredAt: now, lines: changed };
    const claims: StockChangeWrite[] = [...movementIds].map(([key, ids]) => ({ op: 'claim-entry', entry: { key, jobId: id, movementIds: ids, appliedAt: now } }));
    const stockWrites = [...unitWrites, ...ledger.flush(), ...claims];
    const writes = stockWrites.flatMap((write) => this.ports.stock.writesOf(organizationId, write));
    if (writes.length + 1 > this.ports.maxWrites) {
      const created = stockWrites.flatMap((write) => (write.op === 'create' ? [{ ...write.record, onHand: 0 }] : []));
      if (created.length > 0) throw new RecordsFirstError(created);
    }
    markCreatedByChange(events, precreated);
    return {
      writes: [...writes, this.ports.changes.createWrite(organizationId, change)],
      audit: { kind: 'stock.adjusted', target: { kind: 'stock-change', id }, summary: `Stock adjusted: ${input.reference} (${input.lines.length} line${input.lines.length === 1 ? '' : 's'})`, changes: [] },
      events,
      result: change,
    };
  }

  /** The lines with their item, location and keys; unknown references and lot-rule breaches are one 400. */
  private async resolve(organizationId: string, input: AdjustmentInput): Promise<DecidedLine[]> {
    const itemReferences = input.lines.map((line, index) => reference(line.sku, line.itemId, `/lines/${index}/${line.sku === undefined ? 'itemId' : 'sku'}`));
    const locationReferences = input.lines.map((line, index) => reference(line.locationCode, line.locationId, `/lines/${index}/${line.locationCode === undefined ? 'locationId' : 'locationCode'}`));
    const resolved = await resolveReferences(this.ports.references, organizationId, itemReferences, locationReferences);
    const errors: FieldError[] = [];
    const lines = input.lines.map((line, index) => {
      const item = resolved.item(itemReferences[index] as Reference);
      const location = resolved.location(locationReferences[index] as Reference);
      const lotProblem = lotError(item, line.lot, 'lot', index);
      if (lotProblem) errors.push({ location: 'body', pointer: `/lines/${index}/lot`, code: lotProblem.code, message: lotProblem.message });
      return {
        index,
        input: line,
        item,
        location,
        side: { location, lot: line.lot },
        recordKey: stockRecordKey(item.id, location.id, line.lot),
        claimKey: adjustmentClaimKey(input.reference, item.sku, location.code, line.lot),
      };
    });
    if (errors.length > 0) throw new ValidationError(errors, 'Lines break the lot rules of their items; see `errors`.');
    return lines;
  }

  private async refuseApplied(organizationId: string, lines: DecidedLine[]): Promise<void> {
    const claims = await this.ports.stock.getByNaturalKeys(organizationId, 'stock-entry', new Set(lines.map((line) => line.claimKey)));
    const applied = lines.flatMap((line) => {
      const claim = claims.get(line.claimKey)?.record as StockEntry | undefined;
      return claim ? [{ line: line.index, appliedBy: claim.jobId }] : [];
    });
    if (applied.length > 0) throw new AlreadyAppliedError(applied);
  }
}

/** Each line on the ledger in request order: the lines it changed, their events, the short ones and the movements per claim. */
function decideLines(state: StockState, lines: DecidedLine[], input: AdjustmentInput, now: string) {
  const ledger = new StockLedger(state, { stockRecord: () => newRecordId('stock-record'), movement: newMovementId });
  const changed: StockChangeLine[] = [];
  const events: EventDraft[] = [];
  const short: ShortLine[] = [];
  const movementIds = new Map<string, string[]>();
  /** What the lines wrote themselves (their movements); the ledger's flush adds the records and totals. */
  const unitWrites: StockWrite[] = [];
  for (const line of lines) {
    ledger.begin();
    const before = ledger.onHand(line.item, line.side);
    const row = { reference: input.reference, sku: line.item.sku, locationCode: line.location.code, quantityDelta: line.input.quantityDelta, quantityDeltaCell: String(line.input.quantityDelta), lot: line.input.lot, reason: input.reason };
    const decision = decideAdjustment(row, line, ledger, { rowNumber: line.index, now });
    if (!decision.ok) {
      ledger.rollback();
      if (decision.refusal.code !== 'insufficient-stock') throw refusedLine(line.index, decision.refusal.message);
      short.push({ line: line.index, stockRecordId: state.stockRecord(line.recordKey)?.record.id ?? null, available: before, requested: Math.abs(line.input.quantityDelta) });
      continue;
    }
    const unit = ledger.endUnit();
    unitWrites.push(...unit.writes);
    events.push(...unit.events);
    movementIds.set(line.claimKey, [...(movementIds.get(line.claimKey) ?? []), ...decision.movementIds]);
    const after = ledger.recordAt(line.item, line.side);
    changed.push({
      line: line.index,
      movementId: decision.movementIds[0] ?? null,
      stockRecordId: after.id,
      itemId: line.item.id,
      sku: line.item.sku,
      locationId: line.location.id,
      locationCode: line.location.code,
      lot: line.input.lot,
      previousQuantity: before,
      quantity: after.onHand,
      delta: after.onHand - before,
      reserved: 0,
      available: after.onHand,
    });
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

function reference(key: string | undefined, id: string | undefined, pointer: string): Reference {
  if (key !== undefined) return { by: 'key', value: key, pointer };
  if (id !== undefined) return { by: 'id', value: id, pointer };
  // The contract requires exactly one of the two.
  throw new Error(`${pointer}: neither a natural key nor an id`);
}

/** Every line whose record is not at the quantity the client expects, all at once. */
function refuseStale(lines: DecidedLine[], state: StockState): void {
  const stale: StaleLine[] = [];
  for (const line of lines) {
    if (line.input.expectedQuantity === null) continue;
    const stored = state.stockRecord(line.recordKey)?.record;
    const current = stored?.onHand ?? 0;
    if (current !== line.input.expectedQuantity) stale.push({ line: line.index, stockRecordId: stored?.id ?? null, expectedQuantity: line.input.expectedQuantity, currentQuantity: current });
  }
  if (stale.length > 0) throw new QuantityStaleError(stale);
}

/** A refusal other than too little stock (more than a record may hold): the line's quantity is the problem. */
function refusedLine(index: number, message: string): ValidationError {
  return new ValidationError([{ location: 'body', pointer: `/lines/${index}/quantityDelta`, code: 'invalid-number', message }], message);
}
