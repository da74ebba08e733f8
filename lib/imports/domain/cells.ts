import { identifierProblem } from '../../platform/core/identifiers.ts';
import type { DuplicateStrategy, RawRow, RowError, RowParse } from './types.ts';

/**
 * Cell rules shared by the import kinds. A `RowReader` reads the cells of one row and collects
 * every problem, so a row reports all its errors at once.
 *
 * - Lengths are counted in characters (Unicode code points), not bytes.
 * - A cell that is empty or only whitespace is empty: a required column reports `required`, an
 *   optional one yields `null`.
 * - Identifiers (skus, codes, references, lots, unit, barcode) are never trimmed: leading or
 *   trailing whitespace, control characters and invisible format characters (zero-width, bidi
 *   controls) are `invalid-value` (lib/platform/core/identifiers.ts), because a silently trimmed key
 *   would match a different record than the one in the file, and an invisible one a look-alike.
 * - Free text (name, description, category) is kept exactly as given.
 * - Numbers are plain decimals (`12`, `0.5`, `-3.5`): no exponent, no thousands or decimal
 *   comma, no leading `+`, no leading zeros (`007`), no surrounding spaces; else `invalid-number`
 *   (also for values out of range).
 * - Enum values match exactly (case-sensitive); else `invalid-value` naming the allowed values.
 *
 * Optional readers return `undefined` when the column is absent from the header (the RawRow has
 * no such key), `null` when the cell is empty, else the value.
 */

const PLAIN_DECIMAL = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export function characterCount(text: string): number {
  let count = 0;
  for (const _ of text) count += 1;
  return count;
}

function isEmpty(cell: string): boolean {
  return cell.trim() === '';
}

export class RowReader {
  readonly errors: RowError[] = [];

  constructor(
    private readonly raw: RawRow,
    readonly rowNumber: number,
  ) {}

  /** The cell as given; `undefined` when the column is absent from the header. */
  cell(column: string): string | undefined {
    return this.raw[column.toLowerCase()];
  }

  error(column: string | null, value: string | null, code: string, message: string): void {
    this.errors.push({ rowNumber: this.rowNumber, column, value, code, message });
  }

  requiredText(column: string, maxLength: number): string | undefined {
    const cell = this.cell(column) ?? '';
    if (isEmpty(cell)) {
      this.error(column, cell, 'required', `${column} is required.`);
      return undefined;
    }
    return this.checkLength(column, cell, maxLength) ? cell : undefined;
  }

  optionalText(column: string, maxLength: number): string | null | undefined {
    const cell = this.cell(column);
    if (cell === undefined) return undefined;
    if (isEmpty(cell)) return null;
    return this.checkLength(column, cell, maxLength) ? cell : undefined;
  }

  requiredIdentifier(column: string, maxLength: number): string | undefined {
    const cell = this.cell(column) ?? '';
    if (isEmpty(cell)) {
      this.error(column, cell, 'required', `${column} is required.`);
      return undefined;
    }
    return this.checkIdentifier(column, cell, maxLength) ? cell : undefined;
  }

  optionalIdentifier(column: string, maxLength: number): string | null | undefined {
    const cell = this.cell(column);
    if (cell === undefined) return undefined;
    if (isEmpty(cell)) return null;
    return this.checkIdentifier(column, cell, maxLength) ? cell : undefined;
  }

  optionalNumber(column: string, range: { min?: number } = {}): number | null | undefined {
    const cell = this.cell(column);
    if (cell === undefined) return undefined;
    if (isEmpty(cell)) return null;
    const value = PLAIN_DECIMAL.test(cell) ? Number(cell) + 0 : Number.NaN; // `+ 0` turns -0 into 0
    if (!Number.isFinite(value)) {
      this.error(column, cell, 'invalid-number', `${column} must be a plain decimal number such as 12 or 3.5 (no exponent, spaces or thousands separators).`);
      return undefined;
    }
    if (range.min !== undefined && value < range.min) {
      this.error(column, cell, 'invalid-number', `${column} must be ${range.min} or greater.`);
      return undefined;
    }
    return value;
  }

  optionalEnum<T extends string>(column: string, values: readonly T[]): T | null | undefined {
    const cell = this.cell(column);
    if (cell === undefined) return undefined;
    if (isEmpty(cell)) return null;
    const value = values.find((allowed) => allowed === cell);
    if (value === undefined) {
      this.error(column, cell, 'invalid-value', `${column} must be one of: ${values.join(', ')}.`);
    }
    return value;
  }

  /** The parsed row when no cell had a problem; `build` runs only then. */
  result<T>(build: () => T | undefined): RowParse<T> {
    if (this.errors.length > 0) return { ok: false, errors: this.errors };
    const value = build();
    if (value === undefined) throw new Error('RowReader.result: a required value is missing although no error was recorded');
    return { ok: true, value };
  }

  private checkLength(column: string, cell: string, maxLength: number): boolean {
    if (cell.length <= maxLength || characterCount(cell) <= maxLength) return true;
    this.error(column, cell, 'too-long', `${column} must be at most ${maxLength} characters.`);
    return false;
  }

  private checkIdentifier(column: string, cell: string, maxLength: number): boolean {
    const problem = identifierProblem(cell);
    if (problem !== undefined) {
      this.error(column, cell, 'invalid-value', `${column} ${problem}`);
      return false;
    }
    return this.checkLength(column, cell, maxLength);
  }
}

/**
 * What `skip` and `fail` do with a row whose natural key exists; `undefined` for `update`, which
 * each kind merges itself.
 */
export function onExistingRecord(
  strategy: DuplicateStrategy,
  duplicate: { rowNumber: number; column: string; value: string; message: string },
): { action: 'skipped'; events: [] } | { action: 'failed'; error: RowError } | undefined {
  if (strategy === 'skip') return { action: 'skipped', events: [] };
  if (strategy === 'fail') return { action: 'failed', error: { ...duplicate, code: 'duplicate' } };
  return undefined;
}
