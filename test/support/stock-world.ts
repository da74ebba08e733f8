import { expect } from 'vitest';
import type { Bom } from '../../lib/boms/domain/records.ts';
import type { EventDraft } from '../../lib/platform/events/types.ts';
import type {
  DecideContext,
  ImportKindDefinition,
  ImportUnit,
  RecordWrite,
  ReferenceEntity,
  ReferenceTypes,
  UnitDecision,
} from '../../lib/imports/domain/kind-definition.ts';
import type { DuplicateStrategy, RawRow } from '../../lib/imports/domain/types.ts';
import type { Item } from '../../lib/inventory/domain/item.ts';
import type { Location } from '../../lib/inventory/domain/location.ts';
import type { VersionedRecord } from '../../lib/inventory/domain/records.ts';
import { stockRecordKey, type StockRecord } from '../../lib/inventory/domain/stock.ts';
import { StockLedger, type StockBase, type StockSide } from '../../lib/stock/domain/ledger.ts';
import type { ItemStock, StockDocument, StockEntry } from '../../lib/stock/domain/records.ts';

/**
 * In-memory stored stock for unit tests of the stock flows through their import kinds
 * (test/unit/imports/stock-kinds.test.ts: cells and claims; test/unit/stock/flows.test.ts: the
 * decisions): items, locations and BOMs to resolve, stored stock records and totals, and a real
 * StockLedger over them.
 */

export const NOW = '2026-11-22T10:00:00.000Z';
export const STORED_AT = '2026-11-01T08:00:00.000Z';
export const JOB = 'imp_1';

export function itemOf(id: string, sku: string, overrides: Partial<Item> = {}): Item {
  return {
    id,
    sku,
    name: sku,
    unit: 'ea',
    description: null,
    category: null,
    barcode: null,
    reorderPoint: null,
    trackingMode: 'none',
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
    ...overrides,
  };
}

export function locationOf(id: string, code: string): Location {
  return { id, code, name: code, type: 'bin', parentCode: null, createdAt: STORED_AT, updatedAt: STORED_AT };
}

export const WIDGET = itemOf('itm_widget', 'WIDGET', { reorderPoint: 5 });
export const RESIN = itemOf('itm_resin', 'RESIN', { trackingMode: 'lot' });
export const GADGET = itemOf('itm_gadget', 'GADGET');
export const A1 = locationOf('loc_a1', 'A1');
export const B1 = locationOf('loc_b1', 'B1');
export const at = (location: Location, lot: string | null = null): StockSide => ({ location, lot });

/** GADGET-BOM: 2 GADGET from 3 WIDGET and 1 RESIN (10 % scrap). */
export function bomOf(overrides: Partial<Bom> = {}): Bom {
  return {
    id: 'bom_gadget',
    code: 'GADGET-BOM',
    name: 'Gadget',
    targetItemId: GADGET.id,
    status: 'active',
    outputQuantity: 2,
    unit: null,
    notes: null,
    lines: [
      { lineId: 'bln_widget', itemId: WIDGET.id, quantity: 3, unit: null, scrapPercent: 0, notes: null },
      { lineId: 'bln_resin', itemId: RESIN.id, quantity: 1, unit: null, scrapPercent: 10, notes: null },
    ],
    archived: false,
    revision: { id: 'rev_3', number: 3 },
    createdAt: STORED_AT,
    updatedAt: STORED_AT,
    ...overrides,
  };
}

/** Stored stock as a StockBase reads it, the organization's records, and a ledger over them. */
export class World implements StockBase {
  private readonly records = new Map<string, VersionedRecord<StockRecord>>();
  private readonly totals = new Map<string, VersionedRecord<ItemStock>>();
  private readonly documents = new Map<string, VersionedRecord<StockDocument>>();
  private readonly references: { [E in ReferenceEntity]: Map<string, VersionedRecord<ReferenceTypes[E]>> } = {
    item: new Map(),
    location: new Map(),
    'stock-record': new Map(),
    bom: new Map(),
  };
  private created = 0;
  private movements = 0;
  readonly ledger = new StockLedger(this, { stockRecord: () => `stk_new${(this.created += 1)}`, movement: () => `mov_${(this.movements += 1)}` });

  constructor(boms: Bom[] = []) {
    for (const item of [WIDGET, RESIN, GADGET]) this.references.item.set(item.sku, { record: item, version: 1 });
    for (const location of [A1, B1]) this.references.location.set(location.code, { record: location, version: 1 });
    for (const bom of boms) this.references.bom.set(bom.code, { record: bom, version: 1 });
  }

  stockRecord(naturalKey: string): VersionedRecord<StockRecord> | undefined {
    return this.records.get(naturalKey);
  }

  itemStock(itemId: string): VersionedRecord<ItemStock> | undefined {
    return this.totals.get(itemId);
  }

  document(key: string): VersionedRecord<StockDocument> | undefined {
    return this.documents.get(key);
  }

  /** Lots of the item's stored records at the location, the record that first received stock first (then by id). */
  lotsAt(itemId: string, locationId: string): string[] {
    return [...this.records.values()]
      .map(({ record }) => record)
      .filter((record) => record.itemId === itemId && record.locationId === locationId && record.lot !== null)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt) || a.id.localeCompare(b.id))
      .map((record) => record.lot ?? '');
  }

  /** Stored stock of `item` at a place (first received at `createdAt`); the item's stored total grows by it. */
  stock(item: Item, side: StockSide, onHand: number, createdAt = STORED_AT): StockRecord {
    const record: StockRecord = {
      id: `stk_${item.sku}_${side.location.code}_${side.lot ?? ''}`,
      itemId: item.id,
      sku: item.sku,
      locationId: side.location.id,
      locationCode: side.location.code,
      lot: side.lot,
      onHand,
      createdAt,
      updatedAt: createdAt,
    };
    this.records.set(stockRecordKey(item.id, side.location.id, side.lot), { record, version: 1 });
    const total = this.totals.get(item.id)?.record.onHand ?? 0;
    this.totals.set(item.id, { record: { itemId: item.id, onHand: total + onHand }, version: 1 });
    return record;
  }

  context(rowNumber = 1): DecideContext {
    return {
      now: NOW,
      newId: () => {
        throw new Error('stock kinds name their claims by natural key');
      },
      rowNumber,
      resolve: (entity, key) => this.references[entity].get(key),
      stock: { ledger: this.ledger, jobId: JOB, item: (id) => [WIDGET, RESIN, GADGET].find((item) => item.id === id) },
    };
  }

  onHand(item: Item, side: StockSide): number {
    return this.ledger.onHand(item, side);
  }
}

export function parsed<Row>(kind: ImportKindDefinition<Row, unknown>, raw: RawRow, rowNumber = 1): Row {
  const result = kind.parseRow(raw, rowNumber);
  if (!result.ok) throw new Error(`expected a valid row: ${JSON.stringify(result.errors)}`);
  return result.value;
}

export function unitOf<Row>(kind: ImportKindDefinition<Row, unknown>, raws: RawRow[], firstRow = 1): ImportUnit<Row> {
  return { rowNumbers: raws.map((_, index) => firstRow + index), rows: raws.map((raw, index) => parsed(kind, raw, firstRow + index)) };
}

/** Decides a unit as the pipeline does: inside a ledger unit, rolled back when it failed. */
export function decide<Row>(
  kind: ImportKindDefinition<Row, unknown>,
  world: World,
  raws: RawRow[],
  options: { existing?: VersionedRecord<StockEntry>; strategy?: DuplicateStrategy; rowNumber?: number } = {},
): { decision: UnitDecision; writes: RecordWrite[]; events: EventDraft[] } {
  const rowNumber = options.rowNumber ?? 1;
  world.ledger.begin();
  const decision = kind.decideUnit(unitOf(kind, raws, rowNumber), options.existing, options.strategy ?? 'fail', world.context(rowNumber));
  if (decision.action === 'failed') {
    world.ledger.rollback();
    return { decision, writes: [], events: [] };
  }
  const unit = world.ledger.endUnit();
  return { decision, ...unit };
}

export const typesOf = (events: readonly EventDraft[]) => events.map((event) => event.type);
export const claimOf = (decision: UnitDecision): StockEntry | undefined =>
  decision.action === 'created' ? decision.writes.flatMap((write) => (write.op === 'claim-entry' ? [write.entry] : []))[0] : undefined;

/** Cells by lower-cased header name; a table of cases may leave some undefined (kept as the default). */
export type Cells = Partial<Record<string, string>>;

export function rowOf(defaults: Record<string, string>, cells: Cells): RawRow {
  const row: Record<string, string> = { ...defaults };
  for (const [column, cell] of Object.entries(cells)) if (cell !== undefined) row[column] = cell;
  return row;
}

export const adjustment = (cells: Cells = {}) =>
  rowOf({ reference: 'ADJ-1', sku: 'WIDGET', locationcode: 'A1', quantitydelta: '-3', lot: '', reason: 'damaged' }, cells);
export const transfer = (cells: Cells = {}) =>
  rowOf({ reference: 'T-1', sku: 'WIDGET', fromlocationcode: 'A1', tolocationcode: 'B1', quantity: '4', lot: '' }, cells);
export const count = (cells: Cells = {}) => rowOf({ countreference: 'CNT-1', locationcode: 'A1', sku: 'WIDGET', countedquantity: '8', lot: '' }, cells);
export const receipt = (cells: Cells = {}) => rowOf({ ponumber: 'PO-1', sku: 'WIDGET', locationcode: 'A1', quantity: '10', lot: '', receivedat: '' }, cells);
export const build = (cells: Cells = {}) =>
  rowOf(
    { buildreference: 'B-1', bomcode: 'GADGET-BOM', quantity: '4', locationcode: 'A1', outputlot: '', componentsku: '', sourcelot: '', sourcelocationcode: '' },
    cells,
  );

/** Parses a row expected to be invalid and gives its errors' column and code. */
export function problems<Row>(kind: ImportKindDefinition<Row, unknown>, raw: RawRow): Array<{ column: string | null; code: string }> {
  const result = kind.parseRow(raw, 7);
  if (result.ok) return [];
  expect(result.errors.every((error) => error.rowNumber === 7)).toBe(true);
  return result.errors.map(({ column, code }) => ({ column, code }));
}

export const minutesFromNow = (minutes: number) => new Date(Date.now() + minutes * 60_000).toISOString();
