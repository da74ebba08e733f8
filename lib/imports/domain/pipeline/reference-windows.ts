import type { AnyImportKind } from '../kind-definition.ts';
import type { ParsedRow } from '../validate-file.ts';

/**
 * Reference windows (docs/imports.md "Large files and continuations"): the rows still to handle
 * are checked against the records they refer to a window of rows at a time, read just before the
 * window's rows are decided, so an invocation reads the references of the rows it gets to, not
 * of every row left. Only kinds whose rows are checked each on its own are split: a group (a BOM,
 * a build) or a tree (locations, whose rows may name earlier rows) is checked whole, in one window.
 */

/** Rows per window: the references of about what one invocation commits. */
export const REFERENCE_WINDOW_ROWS = 10_000;

export interface ReferenceWindow<Row> {
  rows: ParsedRow<Row>[];
  /** The last position the window covers (Infinity for the last window): its pending entries are those up to it. */
  through: number;
}

/** The windows of the rows left, in file order. */
export function referenceWindows<Row>(
  kind: AnyImportKind,
  left: readonly ParsedRow<Row>[],
  positionOf: (rowNumber: number) => number,
  size = REFERENCE_WINDOW_ROWS,
): ReferenceWindow<Row>[] {
  if (kind.groupKeyOf || kind.parentKeyOf || left.length <= size) return [{ rows: [...left], through: Infinity }];
  const windows: ReferenceWindow<Row>[] = [];
  for (let start = 0; start < left.length; start += size) {
    const rows = left.slice(start, start + size);
    const last = rows.at(-1);
    windows.push({ rows, through: start + size >= left.length || !last ? Infinity : positionOf(last.rowNumber) });
  }
  return windows;
}
