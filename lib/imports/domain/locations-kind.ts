import { LOCATION_DEFAULT_TYPE, LOCATION_MAX_LENGTHS, LOCATION_TYPES, type Location, type LocationType } from '../../inventory/index.ts';
import { applyRow, changedFields, onExistingRecord, RowReader } from './cells.ts';
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

/** Fields an update can change (code is the key). */
export const LOCATION_CHANGEABLE_FIELDS = ['name', 'type', 'parentCode'] as const;

const EMPTY_VALUES = { name: '', type: LOCATION_DEFAULT_TYPE, parentCode: null } satisfies Pick<Location, (typeof LOCATION_CHANGEABLE_FIELDS)[number]>;

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

function decideLocation(
  row: LocationRow,
  existing: Location | undefined,
  strategy: DuplicateStrategy,
  context: { now: string; newId: () => string; rowNumber: number },
): RowDecision<Location> {
  const patch = { name: row.name, type: row.type, parentCode: row.parentCode };
  if (existing === undefined) {
    const defaults: Location = {
      id: context.newId(),
      code: row.code,
      name: row.name,
      type: LOCATION_DEFAULT_TYPE,
      parentCode: null,
      createdAt: context.now,
      updatedAt: context.now,
    };
    return { action: 'created', record: applyRow(defaults, patch, EMPTY_VALUES), events: [] };
  }
  const duplicate = onExistingRecord(strategy, {
    rowNumber: context.rowNumber,
    column: 'code',
    value: row.code,
    message: `A location with code "${row.code}" already exists (duplicateStrategy fail).`,
  });
  if (duplicate) return duplicate;
  const merged = applyRow(existing, patch, EMPTY_VALUES);
  if (changedFields(existing, merged, LOCATION_CHANGEABLE_FIELDS).length === 0) return { action: 'skipped', events: [] };
  return { action: 'updated', record: { ...merged, updatedAt: context.now }, events: [] };
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
