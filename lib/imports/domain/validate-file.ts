import type { CsvRow } from '../../platform/csv/csv-reader.ts';
import type { ReferenceEntity, ImportKindDefinition } from './kind-definition.ts';
import type { RowError } from './types.ts';

/**
 * Validation of a whole file, before any row is applied (docs/imports.md "Guarantees"). The caller runs:
 *
 * 1. `readCsv(file, def)` → rows (or a file failure);
 * 2. `parseRows(def, csv)` → parsed rows and per-row cell errors;
 * 3. `referencedKeys(def, parsed)` → per entity, the keys the file's rows refer to;
 * 4. loads those keys' records from storage;
 * 5. `validateRows(def, parsed, knownKeys)` → the rows to apply and every row error, by row;
 * 6. `def.decideUnit(unit, existing, strategy, context)` for each unit of valid rows, in order,
 *    with `existing` read a batch of natural keys at a time.
 *
 * Natural keys and references match exactly (case-sensitive).
 */

export interface ParsedRow<Row> {
  rowNumber: number;
  row: Row;
}

export interface ParsedRows<Row> {
  /** Rows whose cells are valid, in file order. */
  parsed: ParsedRow<Row>[];
  /** For kinds that group rows: every row's group key, valid or not. */
  groupOfRow: Map<number, string>;
  /** Cell errors and structural row errors (from `readCsv`), in file order. */
  errors: RowError[];
}

export interface ValidatedRows<Row> {
  /** Rows to apply, in file order. */
  valid: ParsedRow<Row>[];
  /** Every row error of the file, sorted by row number (a row's own errors keep their order). */
  errors: RowError[];
}

/** Of `keys`, those that exist in the tenant's data (already loaded by the caller). */
export type KnownKeys = (entity: ReferenceEntity, keys: readonly string[]) => ReadonlySet<string>;

function byRowNumber(a: RowError, b: RowError): number {
  return a.rowNumber - b.rowNumber;
}

/**
 * Parses every row; `rowErrors` (structural problems found by `readCsv`) are carried along, and
 * the rows the reader refused (`refusedRows`) still name their group, which they spoil.
 */
export function parseRows<Row, Rec>(
  def: ImportKindDefinition<Row, Rec>,
  csv: { rows: readonly CsvRow[]; rowErrors?: readonly RowError[]; refusedRows?: readonly CsvRow[] },
): ParsedRows<Row> {
  const parsed: ParsedRow<Row>[] = [];
  const groupOfRow = new Map<number, string>();
  const errors: RowError[] = [...(csv.rowErrors ?? [])];
  if (def.groupKeyOf) for (const { rowNumber, raw } of csv.refusedRows ?? []) groupOfRow.set(rowNumber, def.groupKeyOf(raw));
  for (const { rowNumber, raw } of csv.rows) {
    if (def.groupKeyOf) groupOfRow.set(rowNumber, def.groupKeyOf(raw));
    const result = def.parseRow(raw, rowNumber);
    if (result.ok) parsed.push({ rowNumber, row: result.value });
    else errors.push(...result.errors);
  }
  errors.sort(byRowNumber);
  return { parsed, groupOfRow, errors };
}

/**
 * Every key the file's rows refer to, per entity: what validation needs from the tenant's data.
 * (The records a row would create or update are read later, a batch at a time, when the row is
 * decided.)
 */
export function referencedKeys<Row, Rec>(def: ImportKindDefinition<Row, Rec>, parsed: readonly ParsedRow<Row>[]): Map<ReferenceEntity, Set<string>> {
  const keys = new Map<ReferenceEntity, Set<string>>();
  for (const { row } of parsed) {
    for (const reference of def.references(row)) {
      let set = keys.get(reference.entity);
      if (set === undefined) {
        set = new Set();
        keys.set(reference.entity, set);
      }
      set.add(reference.key);
    }
  }
  return keys;
}

/**
 * Checks what needs the whole file and the tenant's keys:
 * - a natural key repeated in the file: the later row gets `duplicate-in-file` naming the first
 *   row (only rows whose cells are valid have a key to compare);
 * - references: each must be a tenant key (`knownKeys`) or the natural key of an EARLIER valid
 *   row of the file (`def.entity`); otherwise the reference's code (e.g. `unknown-location`).
 *   Rows up to `appliedThrough` (a resumed job's checkpoint) were handled already: what they
 *   created is among the tenant's keys, so they never vouch for a reference themselves.
 * A row is valid when it has none of these errors; every error of a row is reported.
 */
export function validateRows<Row, Rec>(
  def: ImportKindDefinition<Row, Rec>,
  parsedRows: ParsedRows<Row>,
  knownKeys: KnownKeys,
  appliedThrough = 0,
): ValidatedRows<Row> {
  const references = parsedRows.parsed.map(({ row }) => def.references(row));
  const referenced = new Map<ReferenceEntity, Set<string>>();
  for (const reference of references.flat()) {
    const set = referenced.get(reference.entity) ?? new Set<string>();
    set.add(reference.key);
    referenced.set(reference.entity, set);
  }
  const tenantKeys = new Map<ReferenceEntity, ReadonlySet<string>>();
  for (const [entity, keys] of referenced) tenantKeys.set(entity, knownKeys(entity, [...keys]));

  const firstRowOfKey = new Map<string, number>();
  const earlierValidKeys = new Set<string>();
  const valid: ParsedRow<Row>[] = [];
  const errors: RowError[] = [...parsedRows.errors];
  parsedRows.parsed.forEach((parsed, index) => {
    const { rowNumber, row } = parsed;
    const key = def.naturalKeyOf(row);
    let ok = true;

    // Rows of one group share their key by design; elsewhere a repeated key is a mistake.
    const first = def.groupKeyOf ? undefined : firstRowOfKey.get(key);
    if (first === undefined) firstRowOfKey.set(key, rowNumber);
    else {
      ok = false;
      errors.push({
        rowNumber,
        column: def.naturalKey.length === 1 ? (def.naturalKey[0] ?? null) : null,
        value: key,
        code: 'duplicate-in-file',
        message: `The same ${def.naturalKey.join(' + ')} as row ${first}; each ${def.entity} may appear only once per file.`,
      });
    }

    for (const reference of references[index] ?? []) {
      const inTenant = tenantKeys.get(reference.entity)?.has(reference.key) ?? false;
      const inEarlierRow = reference.entity === def.entity && earlierValidKeys.has(reference.key);
      if (inTenant || inEarlierRow || reference.optional) continue;
      ok = false;
      errors.push({
        rowNumber,
        column: reference.column,
        value: reference.key,
        code: reference.code,
        message: `${reference.column} "${reference.key}" names no ${reference.entity} of the organization nor of an earlier valid row of this file.`,
      });
    }

    if (ok) {
      valid.push(parsed);
      if (rowNumber > appliedThrough) earlierValidKeys.add(key);
    }
  });
  const kept = def.groupKeyOf ? dropIncompleteGroups(def, parsedRows, valid, errors) : valid;
  errors.sort(byRowNumber);
  return { valid: kept, errors };
}

/**
 * A group applies whole or not at all: when any row of a group has an error, its other rows get
 * `group-has-errors` and are not applied.
 */
function dropIncompleteGroups<Row, Rec>(
  def: ImportKindDefinition<Row, Rec>,
  parsedRows: ParsedRows<Row>,
  valid: ParsedRow<Row>[],
  errors: RowError[],
): ParsedRow<Row>[] {
  const { groupOfRow } = parsedRows;
  const firstErrorOfGroup = new Map<string, number>();
  for (const error of [...errors].sort(byRowNumber)) {
    const group = groupOfRow.get(error.rowNumber);
    if (group !== undefined && !firstErrorOfGroup.has(group)) firstErrorOfGroup.set(group, error.rowNumber);
  }
  return valid.filter(({ rowNumber }) => {
    const group = groupOfRow.get(rowNumber) ?? '';
    const failedRow = firstErrorOfGroup.get(group);
    if (failedRow === undefined) return true;
    errors.push({
      rowNumber,
      column: def.naturalKey.length === 1 ? (def.naturalKey[0] ?? null) : null,
      value: group,
      code: 'group-has-errors',
      message: `Row ${failedRow} of the same ${def.naturalKey.join(' + ')} has errors; none of its rows is applied.`,
    });
    return false;
  });
}
