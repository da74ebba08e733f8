import type { CsvReadResult, CsvRow } from '../../../platform/csv/csv-reader.ts';
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

/**
 * Where each row is handled: at its own number, or, for a grouping kind, at its group's first
 * row, whatever the group's verdict. So the checkpoint is either before or past all of a group's
 * rows: a resumed run that judges the group differently (a reference that appeared in between)
 * neither drops its later rows nor counts them again.
 */
export function positionOfRow(kind: AnyImportKind, groupOfRow: ReadonlyMap<number, string>): (rowNumber: number) => number {
  if (!kind.groupKeyOf) return (rowNumber) => rowNumber;
  const firstRowOfGroup = new Map<string, number>();
  // groupOfRow holds the rows in file order: a group's first entry is its first row.
  for (const [rowNumber, group] of groupOfRow) if (group !== '' && !firstRowOfGroup.has(group)) firstRowOfGroup.set(group, rowNumber);
  return (rowNumber) => {
    const group = groupOfRow.get(rowNumber);
    return (group === undefined ? undefined : firstRowOfGroup.get(group)) ?? rowNumber;
  };
}

/** The parsed rows still to handle after `checkpoint` (a continuation reads references for these only). */
export function rowsLeft<Row>(parsed: readonly ParsedRow<Row>[], positionOf: (rowNumber: number) => number, checkpoint: number): ParsedRow<Row>[] {
  return checkpoint === 0 ? [...parsed] : parsed.filter(({ rowNumber }) => positionOf(rowNumber) > checkpoint);
}

/** The units and the verdicts after `checkpoint`, ordered by where they are handled (`positionOfRow`). */
export function pendingAfter(kind: AnyImportKind, validated: ValidatedRows<unknown>, groupOfRow: ReadonlyMap<number, string>, checkpoint: number): Pending[] {
  const positionOf = positionOfRow(kind, groupOfRow);
  return [
    ...unitsOf(kind, validated.valid, groupOfRow).map((unit) => ({ position: positionOf(unit.rowNumbers[0] ?? 0), unit })),
    ...[...groupBy(validated.errors, (error) => positionOf(error.rowNumber))].map(([position, errors]) => ({ position, errors })),
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

/** Errors by the position they are handled at, each list in row order. */
function groupBy(errors: RowError[], positionOf: (error: RowError) => number): Map<number, RowError[]> {
  const byPosition = new Map<number, RowError[]>();
  for (const error of errors) {
    const position = positionOf(error);
    const list = byPosition.get(position) ?? [];
    list.push(error);
    byPosition.set(position, list);
  }
  return byPosition;
}
