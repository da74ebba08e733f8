import type { EventDraft } from '../events/types.ts';
import type { InventoryRecordType } from '../inventory/records.ts';
import type { DuplicateStrategy, ImportKindSummary, RawRow, RowError, RowParse } from './types.ts';

/**
 * The contract of one import kind (PRODUCT §2). A kind is pure: it parses a row, names the row's
 * natural key and the keys it refers to, and decides what the row does to the stored record.
 * Reading the file, loading tenant data and committing are the pipeline's job, the same for
 * every kind (`csv-reader.ts`, `validate-file.ts`, the worker).
 */

/** Inventory records whose natural keys import kinds write or refer to. */
export type ImportEntity = Extract<InventoryRecordType, 'item' | 'location'>;

/** A key a row refers to: it must exist in the tenant's data or in an earlier valid row of the file. */
export interface RowReference {
  entity: ImportEntity;
  key: string;
  /** The column the key was read from (reported in the row error). */
  column: string;
  /** Row error code when the key is unknown, e.g. `unknown-location`. */
  code: string;
}

export interface DecideContext {
  /** ISO 8601 UTC timestamp of the change (`createdAt`/`updatedAt`, event `occurredAt`). */
  now: string;
  /** A new opaque id for a created record (e.g. `() => newId('itm')`). */
  newId: () => string;
  /** The row being decided; used by the row error of a `failed` decision. */
  rowNumber: number;
}

/**
 * What a row does. `created` and `updated` carry the full record to write and the domain events
 * to commit with it; `skipped` writes nothing; `failed` is a row error (e.g. `duplicate`).
 */
export type RowDecision<Rec> =
  | { action: 'created'; record: Rec; events: EventDraft[] }
  | { action: 'updated'; record: Rec; events: EventDraft[] }
  | { action: 'skipped'; events: EventDraft[] }
  | { action: 'failed'; error: RowError };

/**
 * One import kind. `Row` is a parsed, validated row; `Rec` the stored record its natural key
 * identifies. Optional columns are `undefined` in a `Row` when the column is absent from the
 * file's header and `null` when the cell is empty (see the kind modules for what each means).
 */
export interface ImportKindDefinition<Row = unknown, Rec = unknown> extends ImportKindSummary {
  /** The storage entity whose natural key this kind writes. */
  entity: ImportEntity;
  /** Every problem of the row at once, or the parsed row. */
  parseRow(raw: RawRow, rowNumber: number): RowParse<Row>;
  /** The natural key of the row (matched exactly, case-sensitive). */
  naturalKeyOf(row: Row): string;
  /** Keys that must exist in the tenant's data or in earlier valid rows of the same file. */
  references(row: Row): RowReference[];
  /** What the row does given the stored record with its natural key (if any) and the strategy. */
  decide(row: Row, existing: Rec | undefined, strategy: DuplicateStrategy, context: DecideContext): RowDecision<Rec>;
  /**
   * For kinds whose records form a tree (locations): the natural key of a record's parent. The
   * pipeline then refuses a row that would make a record its own ancestor.
   */
  parentKeyOf?(record: Rec): string | null;
  /** The column that holds the parent key (for the row error of a cycle). */
  parentColumn?: string;
}

/** Any registered kind, as the generic pipeline sees it. */
export type AnyImportKind = ImportKindDefinition<unknown, unknown>;
