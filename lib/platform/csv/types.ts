/** The shapes CSV files are read into and checked against: imports read them, exports write row errors back. */

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
