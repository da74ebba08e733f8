import type { CsvReadResult, CsvRow } from '../csv-reader.ts';
import type { AnyImportKind, ImportUnit } from '../kind-definition.ts';
import type { RowError } from '../types.ts';
import type { ParsedRow, ValidatedRows } from '../validate-file.ts';
import type { Pending } from './run-state.ts';

/**
 * Read and validate: what the whole file holds once it is read (`readCsv`), parsed (`parseRows`)
 * and validated against its references (`validateRows`): the rows still to handle after the
 * checkpoint, in file order, each a unit to decide or a verdict to record.
 */

/** Rows in the file: the rows read, and those the reader refused (counted once however many errors they have). */
export function totalRowsOf(csv: Extract<CsvReadResult, { ok: true }>): number {
  return csv.rows.length + new Set(csv.rowErrors.map((error) => error.rowNumber)).size;
}

/** The units and the verdicts after `checkpoint`, ordered by their first row. */
export function pendingAfter(kind: AnyImportKind, validated: ValidatedRows<unknown>, groupOfRow: ReadonlyMap<number, string>, checkpoint: number): Pending[] {
  return [
    ...unitsOf(kind, validated.valid, groupOfRow).map((unit) => ({ position: unit.rowNumbers[0] ?? 0, unit })),
    ...[...groupByRow(validated.errors)].map(([position, errors]) => ({ position, errors })),
  ]
    .filter(({ position }) => position > checkpoint)
    .sort((a, b) => a.position - b.position);
}

/**
 * The units of the valid rows, ordered by their first row: one per row, or for a grouping kind
 * one per group key with its rows in file order.
 */
export function unitsOf<Row>(kind: { groupKeyOf?: unknown }, valid: readonly ParsedRow<Row>[], groupOfRow: ReadonlyMap<number, string>): ImportUnit<Row>[] {
  if (!kind.groupKeyOf) return valid.map(({ rowNumber, row }) => ({ rowNumbers: [rowNumber], rows: [row] }));
  const groups = new Map<string, ImportUnit<Row>>();
  for (const { rowNumber, row } of valid) {
    const key = groupOfRow.get(rowNumber) ?? '';
    const unit = groups.get(key) ?? { rowNumbers: [], rows: [] };
    unit.rowNumbers.push(rowNumber);
    unit.rows.push(row);
    groups.set(key, unit);
  }
  return [...groups.values()];
}

/** For kinds with receipts or counts: row number → reference, at the file's last row of each document. */
export function documentEndsOf(kind: AnyImportKind, rows: readonly CsvRow[]): Map<number, string> {
  const referenceOf = kind.stock?.document?.referenceOf;
  if (!referenceOf) return new Map();
  const lastRow = new Map<string, number>();
  for (const { rowNumber, raw } of rows) {
    const reference = referenceOf(raw);
    if (reference !== undefined && reference.trim() !== '') lastRow.set(reference, rowNumber);
  }
  return new Map([...lastRow].map(([reference, rowNumber]) => [rowNumber, reference]));
}

function groupByRow(errors: RowError[]): Map<number, RowError[]> {
  const byRow = new Map<number, RowError[]>();
  for (const error of errors) byRow.set(error.rowNumber, [...(byRow.get(error.rowNumber) ?? []), error]);
  return byRow;
}
