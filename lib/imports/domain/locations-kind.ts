import {
  LOCATION_DEFAULT_TYPE,
  LOCATION_MAX_LENGTHS,
  LOCATION_TYPES,
  changeLocation,
  newLocation,
  type Location,
  type LocationType,
} from '../../inventory/index.ts';
import { onExistingRecord, RowReader } from './cells.ts';
import { oneRecordPerRowKind, type RowDecision } from './kind-definition.ts';
import type { DuplicateStrategy, RawRow } from './types.ts';
import { DUPLICATE_STRATEGIES, MAX_FILE_BYTES, MAX_ROWS } from './types.ts';

/**
 * Import kind `locations` (docs/imports.md "Kinds"): creates and updates locations by `code`; no events.
 *
 * `parentCode` must name a location of the tenant or one created by an earlier row of the same
 * file (row error `unknown-location`), and never the row's own code (`invalid-value`).
 * Absent vs empty (duplicateStrategy `update`): a column absent from the file's header leaves the
 * field unchanged; an empty cell sets `parentCode` to null and `type` to its default `bin`.
 */

/** A parsed row. Optional fields: `undefined` = column absent, `null` = cell empty. */
export interface LocationRow {
  code: string;
  name: string;
  type?: LocationType | null;
  parentCode?: string | null;
}

function parseLocationRow(raw: RawRow, rowNumber: number) {
  const cells = new RowReader(raw, rowNumber);
  const code = cells.requiredIdentifier('code', LOCATION_MAX_LENGTHS.code);
  const name = cells.requiredText('name', LOCATION_MAX_LENGTHS.name);
  const type = cells.optionalEnum('type', LOCATION_TYPES);
  const parentCode = cells.optionalIdentifier('parentCode', LOCATION_MAX_LENGTHS.parentCode);
  if (code !== undefined && parentCode === code) {
    cells.error('parentCode', parentCode, 'invalid-value', 'parentCode must not be the location’s own code.');
  }
  return cells.result<LocationRow>(() => (code === undefined || name === undefined ? undefined : { code, name, type, parentCode }));
}

/** The catalog's decision (lib/inventory/domain/catalog.ts, shared with `POST` / `PATCH /v1/locations`) on the strategy's terms. */
function decideLocation(
  row: LocationRow,
  existing: Location | undefined,
  strategy: DuplicateStrategy,
  context: { now: string; newId: () => string; rowNumber: number },
): RowDecision<Location> {
  const { code, ...fields } = row;
  if (existing === undefined) {
    const created = newLocation(code, fields, context);
    if (created.action !== 'created') throw new Error('A new location is created');
    return { action: 'created', record: created.record, events: [] };
  }
  const duplicate = onExistingRecord(strategy, {
    rowNumber: context.rowNumber,
    column: 'code',
    value: row.code,
    message: `A location with code "${row.code}" already exists (duplicateStrategy fail).`,
  });
  if (duplicate) return duplicate;
  const decision = changeLocation(existing, fields, context);
  return decision.action === 'updated' ? { action: 'updated', record: decision.record, events: [] } : { action: 'skipped', events: [] };
}

export const locationsKind = oneRecordPerRowKind<LocationRow, Location>({
  parentKeyOf: (record) => record.parentCode,
  parentColumn: 'parentCode',
  kind: 'locations',
  title: 'Locations',
  description:
    'Creates locations (warehouses, zones, bins) and, with duplicateStrategy update, changes existing locations matched by code. parentCode must name an existing location or one created by an earlier row of the same file. With update, a column missing from the file leaves the field unchanged and an empty cell clears it (type returns to bin). No events.',
  columns: [
    {
      name: 'code',
      required: true,
      type: 'string',
      description: `Location code; the natural key. At most ${LOCATION_MAX_LENGTHS.code} characters, no leading or trailing spaces.`,
    },
    { name: 'name', required: true, type: 'string', description: `Location name, at most ${LOCATION_MAX_LENGTHS.name} characters.` },
    {
      name: 'type',
      required: false,
      type: 'enum',
      values: LOCATION_TYPES,
      description: `Kind of location: warehouse, zone or bin. Default ${LOCATION_DEFAULT_TYPE}.`,
    },
    {
      name: 'parentCode',
      required: false,
      type: 'string',
      description:
        'Code of the enclosing location: an existing location or one created by an earlier row of the same file; not the row’s own code. Empty: no parent.',
    },
  ],
  naturalKey: ['code'],
  duplicateStrategies: DUPLICATE_STRATEGIES,
  maxFileBytes: MAX_FILE_BYTES,
  maxRows: MAX_ROWS,
  entity: 'location',
  parseRow: parseLocationRow,
  naturalKeyOf: (row) => row.code,
  references: (row) => (row.parentCode ? [{ entity: 'location', key: row.parentCode, column: 'parentCode', code: 'unknown-location' }] : []),
  decide: decideLocation,
});
