import { stringify } from 'csv-stringify/sync';
import { neutralizeFormula } from '../../platform/csv/csv-safety.ts';
import type { ExportFormat } from './job.ts';
import type { ExportColumn } from './kinds.ts';

/**
 * Writing rows as the file's bytes (docs/exports.md "File formats"), driven by the kind's column
 * declaration. CSV: UTF-8, header row, RFC 4180 quoting (a field with a comma, a quote, CR or LF is
 * quoted, `"` doubled), CRLF; numbers as numbers; a text cell starting with `=`, `+`, `-`, `@`,
 * tab or CR gets a leading `'` (the import path reads it back). JSON Lines: one object per row,
 * the columns as keys in order, typed values, `null` for none.
 */

export type ExportCell = string | number | boolean | null;
export type ExportRow = Record<string, ExportCell>;

const CSV_OPTIONS = {
  record_delimiter: '\r\n',
  // csv-stringify quotes on the delimiter, quote and record delimiter; a lone CR or LF must be quoted too (RFC 4180).
  quoted_match: /[\r\n]/,
  cast: { boolean: (value: boolean) => String(value) },
} as const;

function csvCell(column: ExportColumn, value: ExportCell | undefined): string | number | boolean | null {
  if (value === undefined || value === null) return null;
  if (column.type === 'number' && typeof value === 'number') return value;
  if (typeof value === 'boolean') return value;
  return neutralizeFormula(String(value));
}

/** The header line (CSV) or nothing (JSON Lines). */
export function fileHeader(format: ExportFormat, columns: readonly ExportColumn[]): string {
  return format === 'csv' ? stringify([columns.map((column) => column.name)], CSV_OPTIONS) : '';
}

/** The rows as lines of the file. */
export function encodeRows(format: ExportFormat, columns: readonly ExportColumn[], rows: readonly ExportRow[]): string {
  if (rows.length === 0) return '';
  if (format === 'csv')
    return stringify(
      rows.map((row) => columns.map((column) => csvCell(column, row[column.name]))),
      CSV_OPTIONS,
    );
  let lines = '';
  for (const row of rows) {
    const ordered: Record<string, ExportCell> = {};
    for (const column of columns) ordered[column.name] = row[column.name] ?? null;
    lines += `${JSON.stringify(ordered)}\n`;
  }
  return lines;
}
