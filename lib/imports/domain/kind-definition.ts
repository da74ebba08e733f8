import type { Bom, BomRevision, BuildProvenance } from '../../boms/index.ts';
import type { Build } from '../../builds/index.ts';
import type { EventDraft } from '../../platform/events/types.ts';
import { newId } from '../../platform/core/ids.ts';
import { newRecordId, type InventoryRecordType, type InventoryRecordTypes, type VersionedRecord } from '../../inventory/index.ts';
import type { Item } from '../../inventory/index.ts';
import type { StockRecord } from '../../inventory/index.ts';
import type { StockLedger, StockWrite } from '../../stock/index.ts';
import type { StockPlace } from '../../stock/index.ts';
import type { DocumentType, StockEntry } from '../../stock/index.ts';
import type { DuplicateStrategy, ImportKindSummary, RawRow, RowError, RowParse } from './types.ts';

/**
 * The contract of one import kind (docs/imports.md, docs/contributing.md). A kind is pure: it
 * parses a row, names the row's natural key, the keys it refers to and (optionally) the group it
 * belongs to, and decides what a unit of rows writes. Reading the file, loading tenant data in
 * batches and committing are the pipeline's job, the same for every kind (`csv-reader.ts`,
 * `validate-file.ts`, `pipeline/`).
 *
 * A unit is one row, or, for a kind with `groupKeyOf`, every valid row sharing a group key (e.g.
 * the lines of one BOM); it is applied at the position of its first row. A unit may write several
 * records (e.g. a build: stock records and movements).
 */

/** Inventory records whose natural keys import kinds write or refer to. */
export type ImportEntity = Extract<InventoryRecordType, 'item' | 'location' | 'stock-record'>;

/** What a row may refer to by key: an inventory record, or a BOM by its code. */
export type ReferenceEntity = ImportEntity | 'bom';

/** The records references resolve to. */
export type ReferenceTypes = InventoryRecordTypes & { bom: Bom };

/** A key a row refers to: it must exist in the tenant's data or in an earlier valid row of the file. */
export interface RowReference {
  entity: ReferenceEntity;
  key: string;
  /** The column the key was read from (reported in the row error). */
  column: string;
  /** Row error code when the key is unknown, e.g. `unknown-location`. */
  code: string;
  /** A reference that may name nothing yet (e.g. a stock record a build will create): loaded, never a row error. */
  optional?: boolean;
}

/** The rows of one unit, in file order. */
export interface ImportUnit<Row> {
  rowNumbers: number[];
  rows: Row[];
}

export interface DecideContext {
  /** ISO 8601 UTC timestamp of the change (`createdAt`/`updatedAt`, event `occurredAt`). */
  now: string;
  /** A new opaque id for a created record of the kind's entity (e.g. `itm_…`). */
  newId: () => string;
  /** The unit's first row; used by the row error of a `failed` decision. */
  rowNumber: number;
  /** A record a row referred to, as loaded for the whole file (undefined when unknown). */
  resolve<T extends ReferenceEntity>(entity: T, key: string): VersionedRecord<ReferenceTypes[T]> | undefined;
  /** For kinds that move stock: the chunk's ledger and what else a unit reads. */
  stock?: StockDecideContext;
}

export interface StockDecideContext {
  ledger: StockLedger;
  jobId: string;
  /** An item by id (e.g. a BOM's components); undefined when the organization has none. */
  item(id: string): Item | undefined;
}

/**
 * What a kind creates or updates by natural key: an inventory record, a BOM (by its code), or,
 * for kinds that move stock, the claim of an applied row.
 */
export type KindEntity = ImportEntity | 'bom' | 'stock-entry';

export function newKindRecordId(entity: KindEntity): string {
  if (entity === 'stock-entry') throw new Error('A stock entry is named by its natural key, not by an id');
  return entity === 'bom' ? newId('bom') : newRecordId(entity);
}

/**
 * One record a unit writes: a new record, a new version of a loaded one, a BOM with its revision
 * (docs/boms.md "Revisions"), or what stock flows write (docs/inventory.md "The stock model"):
 * ledger entries, stock records, item totals, receipts and counts, row claims and builds.
 */
export type RecordWrite =
  | { op: 'create'; entity: ImportEntity; record: InventoryRecordTypes[ImportEntity] }
  | { op: 'update'; entity: ImportEntity; record: InventoryRecordTypes[ImportEntity]; expectedVersion: number }
  /** A record a decision rests on and does not write (e.g. a location's ancestor): still at `expectedVersion`. */
  | { op: 'check'; entity: ImportEntity; record: InventoryRecordTypes[ImportEntity]; expectedVersion: number }
  | { op: 'create-bom'; bom: Bom; revision: BomRevision }
  | { op: 'update-bom'; bom: Bom; expectedVersion: number; revision: BomRevision }
  | StockWrite
  | { op: 'claim-entry'; entry: StockEntry }
  | { op: 'create-build'; build: BuildProvenance };

/** Stored state stock flows read by key, beside the kinds' own entities. */
export type StockStateEntity = 'item-stock' | 'stock-document';

/** The storage the pipeline reads and writes records through, whatever the kind. */
export interface ImportRecords<Write = unknown> {
  /** By natural key (an item total by item id, a document by its key); unknown keys are absent from the map. */
  getByNaturalKeys(
    organizationId: string,
    entity: KindEntity | StockStateEntity,
    naturalKeys: Iterable<string>,
  ): Promise<Map<string, VersionedRecord<unknown>>>;
  /** Items by id; unknown ids are absent from the map. */
  getItemsByIds(organizationId: string, ids: Iterable<string>): Promise<Map<string, Item>>;
  /**
   * Every stock record of each item at each location that holds stock, whatever the lot (a build
   * draws lots from them). `readOnly`: keep the places' index of stocked lots as it is (a dry run
   * writes nothing).
   */
  stockRecordsAt(organizationId: string, places: ReadonlyArray<StockPlace>, options?: { readOnly?: boolean }): Promise<StockRecord[]>;
  /** The storage actions of one write; a create or a versioned update fails with a 409 when another writer got there first. */
  writesOf(organizationId: string, write: RecordWrite): Write[];
}

/** What a unit does: its writes and events, nothing (`skipped`), or a row error (`failed`). */
export type UnitDecision =
  | { action: 'created' | 'updated'; writes: RecordWrite[]; events: EventDraft[] }
  | { action: 'skipped'; events: EventDraft[] }
  | { action: 'failed'; error: RowError };

/**
 * One import kind. `Row` is a parsed, validated row; `Rec` the stored record its natural key
 * identifies. Optional columns are `undefined` in a `Row` when the column is absent from the
 * file's header and `null` when the cell is empty (see the kind modules for what each means).
 */
export interface ImportKindDefinition<Row = unknown, Rec = unknown> extends ImportKindSummary {
  /** The record whose natural key this kind writes. */
  entity: KindEntity;
  /** Every problem of the row at once, or the parsed row. */
  parseRow(raw: RawRow, rowNumber: number): RowParse<Row>;
  /** The natural key of the record the row writes (matched exactly, case-sensitive). */
  naturalKeyOf(row: Row): string;
  /** Keys that must exist in the tenant's data or in earlier valid rows of the same file. */
  references(row: Row): RowReference[];
  /**
   * Rows with the same group key are one unit. Read from the raw cells, so a row whose other
   * cells are invalid still spoils its group. Without it every row is its own unit and a natural
   * key may appear only once per file.
   */
  groupKeyOf?(raw: RawRow): string;
  /** What the unit does given the stored record with its natural key (if any) and the strategy. */
  decideUnit(unit: ImportUnit<Row>, existing: VersionedRecord<Rec> | undefined, strategy: DuplicateStrategy, context: DecideContext): UnitDecision;
  /**
   * For kinds whose records form a tree (locations): the natural key of a record's parent. The
   * pipeline then refuses a unit that would make a record its own ancestor.
   */
  parentKeyOf?(record: Rec): string | null;
  /** The column that holds the parent key (for the row error of a cycle). */
  parentColumn?: string;
  /** For kinds that move stock: their units are decided against the chunk's ledger (`context.stock`). */
  stock?: StockKindHooks<Row>;
  /**
   * For kinds whose units run as build jobs (`builds`): outside dry runs, each unit is submitted
   * as a build and run to its end by the import worker, in transactions of its own, before its
   * verdict is committed with the job's checkpoint (lib/imports/domain/pipeline/job-units.ts).
   * Dry runs decide it in the chunk with `decideUnit`, their writes going to the overlay.
   */
  buildJob?: BuildJobHooks<Row>;
}

/** What a unit's build job starts from: its verdict at once, the build this import already submitted for it, or a new build (submitted only while its BOM is still at `bomVersion`). */
export type BuildJobPlan = { verdict: UnitDecision } | { resume: string } | { submit: Build; bomVersion: number };

export interface BuildJobContext {
  organizationId: string;
  /** The import job: a build it submitted is named by its claim, so a redelivery resumes it. */
  jobId: string;
  now: string;
  rowNumber: number;
  resolve: DecideContext['resolve'];
  /** An item by id (a BOM's components and target); undefined when the organization has none. */
  itemById(id: string): Item | undefined;
}

export interface BuildJobHooks<Row> {
  plan(unit: ImportUnit<Row>, existing: VersionedRecord<unknown> | undefined, strategy: DuplicateStrategy, context: BuildJobContext): BuildJobPlan;
  /** The unit's verdict once its build ended. */
  verdict(build: Build, unit: ImportUnit<Row>): UnitDecision;
}

/** What the pipeline asks a kind that moves stock, to read its state in batches ahead of deciding. */
export interface StockKindHooks<Row> {
  /**
   * The stock records (by natural key), items (by id) and places (an item's lots at a location)
   * a unit will probably touch, read a batch
   * of units at a time. A best guess is enough: whatever a decision reads that was not read
   * ahead is read then, and the unit decided again.
   */
  keysOf(
    unit: ImportUnit<Row>,
    lookup: { resolve: DecideContext['resolve']; item(id: string): Item | undefined },
  ): { stockRecords: string[]; itemIds: string[]; places?: StockPlace[] };
  /** For kinds whose rows form receipts or counts: the document a raw row belongs to (its reference), if it names one. */
  document?: { type: DocumentType; referenceOf(raw: RawRow): string | undefined };
  /**
   * False for a kind whose movements never change an item's total across locations (transfers):
   * the stock state then reads no item totals with its stock records (docs/inventory.md "Concurrency").
   */
  changesItemTotals?: false;
}

/** Any registered kind, as the generic pipeline sees it. */
export type AnyImportKind = ImportKindDefinition<unknown, unknown>;

/**
 * What one row does to the one record it names, for kinds where a row is a unit and writes one
 * record: the full record to write (created or updated), nothing, or a row error.
 */
export type RowDecision<Rec> =
  | { action: 'created'; record: Rec; events: EventDraft[] }
  | { action: 'updated'; record: Rec; events: EventDraft[] }
  | { action: 'skipped'; events: EventDraft[] }
  | { action: 'failed'; error: RowError };

type OneRecordDecide<Row, Rec> = (
  row: Row,
  existing: Rec | undefined,
  strategy: DuplicateStrategy,
  context: Pick<DecideContext, 'now' | 'newId' | 'rowNumber' | 'stock'>,
) => RowDecision<Rec>;

/**
 * A kind whose rows each create or update one record (items, locations), written as a per-row
 * `decide`; its `decideUnit` turns that into the record's create or versioned update.
 */
export function oneRecordPerRowKind<Row, Rec extends InventoryRecordTypes[ImportEntity]>(
  definition: Omit<ImportKindDefinition<Row, Rec>, 'decideUnit' | 'groupKeyOf' | 'entity'> & { entity: ImportEntity; decide: OneRecordDecide<Row, Rec> },
): ImportKindDefinition<Row, Rec> & { decide: OneRecordDecide<Row, Rec> } {
  return {
    ...definition,
    decideUnit(unit, existing, strategy, context) {
      const [row] = unit.rows;
      if (row === undefined || unit.rows.length !== 1) throw new Error(`A ${definition.kind} unit is exactly one row`);
      const decision = definition.decide(row, existing?.record, strategy, context);
      switch (decision.action) {
        case 'created':
          return { action: 'created', writes: [{ op: 'create', entity: definition.entity, record: decision.record }], events: decision.events };
        case 'updated':
          if (existing === undefined) throw new Error(`${definition.kind}: an update needs the stored record`);
          return {
            action: 'updated',
            writes: [{ op: 'update', entity: definition.entity, record: decision.record, expectedVersion: existing.version }],
            events: decision.events,
          };
        default:
          return decision;
      }
    },
  };
}
