/**
 * Import kinds (docs/imports.md "Kinds"): each kind is one module implementing ImportKindDefinition,
 * registered in `kinds.ts`; the pipeline (submission, worker) is the same for every kind.
 */

export const DUPLICATE_STRATEGIES = ['skip', 'update', 'fail'] as const;
export type DuplicateStrategy = (typeof DUPLICATE_STRATEGIES)[number];

export const MAX_FILE_BYTES = 4 * 1024 * 1024;
export const MAX_ROWS = 100_000;

export interface ImportColumn {
  name: string;
  required: boolean;
  type: 'string' | 'number' | 'integer' | 'enum' | 'date-time';
  description: string;
  /** Allowed values of an `enum` column. */
  values?: readonly string[];
}

/** A problem with one row (docs/imports.md "Row errors"). `rowNumber` 1 is the first data row. */
export interface RowError {
  rowNumber: number;
  column: string | null;
  value: string | null;
  code: string;
  message: string;
}

/** A data row as read from the file: lower-cased header name → cell text, as given. */
export type RawRow = Readonly<Record<string, string>>;

export type RowParse<T> = { ok: true; value: T } | { ok: false; errors: RowError[] };

/** What an applied row did (the job's `counts`: docs/imports.md "The job"). */
export type RowAction = 'created' | 'updated' | 'skipped';

export interface ImportKindSummary {
  kind: string;
  title: string;
  description: string;
  columns: readonly ImportColumn[];
  naturalKey: readonly string[];
  duplicateStrategies: readonly DuplicateStrategy[];
  maxFileBytes: number;
  maxRows: number;
}
