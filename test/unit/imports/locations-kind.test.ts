import { describe, expect, it } from 'vitest';
import type { DecideContext } from '../../../lib/imports/domain/kind-definition.ts';
import { locationsKind, type LocationRow } from '../../../lib/imports/domain/locations-kind.ts';
import type { Location } from '../../../lib/inventory/domain/location.ts';
import type { DuplicateStrategy, RawRow, RowError } from '../../../lib/imports/domain/types.ts';

const NOW = '2026-03-02T09:14:05.000Z';
const EARLIER = '2026-01-05T10:00:00.000Z';
const NEW_ID = 'loc_01KF078DC02V2SXEHM79QT7VQ9';

function context(rowNumber = 4): Pick<DecideContext, 'now' | 'newId' | 'rowNumber'> {
  return { now: NOW, newId: () => NEW_ID, rowNumber };
}

function parsedRow(raw: RawRow): LocationRow {
  const result = locationsKind.parseRow(raw, 2);
  if (!result.ok) throw new Error(`expected a valid row: ${JSON.stringify(result.errors)}`);
  return result.value;
}

function rowErrors(raw: RawRow): RowError[] {
  const result = locationsKind.parseRow(raw, 2);
  if (result.ok) throw new Error('expected row errors');
  return result.errors;
}

const existing: Location = {
  id: 'loc_01KF078DC02V2SXEHM79QT7VQ0',
  code: 'WH1-A-01',
  name: 'Aisle A, bin 1',
  type: 'bin',
  parentCode: 'WH1-A',
  createdAt: EARLIER,
  updatedAt: EARLIER,
};

describe('locationsKind.parseRow', () => {
  it.each<{ raw: RawRow; row: LocationRow }>([
    { raw: { code: 'WH1', name: 'Main warehouse', type: 'warehouse' }, row: { code: 'WH1', name: 'Main warehouse', type: 'warehouse', parentCode: undefined } },
    { raw: { code: 'WH1-A', name: 'Zone A', type: 'zone', parentcode: 'WH1' }, row: { code: 'WH1-A', name: 'Zone A', type: 'zone', parentCode: 'WH1' } },
    { raw: { code: 'B1', name: ' b ', type: '', parentcode: '' }, row: { code: 'B1', name: ' b ', type: null, parentCode: null } },
    { raw: { code: 'B1', name: 'b' }, row: { code: 'B1', name: 'b', type: undefined, parentCode: undefined } },
  ])('parses $raw', ({ raw, row }) => {
    // Act
    const parsed = parsedRow(raw);

    // Assess
    expect(parsed).toEqual(row);
  });

  it.each<{ rule: string; raw: RawRow; column: string; value: string; code: string }>([
    { rule: 'code missing', raw: { name: 'n' }, column: 'code', value: '', code: 'required' },
    { rule: 'code blank', raw: { code: ' ', name: 'n' }, column: 'code', value: ' ', code: 'required' },
    { rule: 'code padded', raw: { code: 'A ', name: 'n' }, column: 'code', value: 'A ', code: 'invalid-value' },
    { rule: 'code 65 characters', raw: { code: 'c'.repeat(65), name: 'n' }, column: 'code', value: 'c'.repeat(65), code: 'too-long' },
    { rule: 'name missing', raw: { code: 'A' }, column: 'name', value: '', code: 'required' },
    { rule: 'name 201 characters', raw: { code: 'A', name: 'n'.repeat(201) }, column: 'name', value: 'n'.repeat(201), code: 'too-long' },
    { rule: 'type unknown', raw: { code: 'A', name: 'n', type: 'shelf' }, column: 'type', value: 'shelf', code: 'invalid-value' },
    { rule: 'type case', raw: { code: 'A', name: 'n', type: 'Bin' }, column: 'type', value: 'Bin', code: 'invalid-value' },
    { rule: 'parentCode padded', raw: { code: 'A', name: 'n', parentcode: ' P' }, column: 'parentCode', value: ' P', code: 'invalid-value' },
    { rule: 'parentCode 65', raw: { code: 'A', name: 'n', parentcode: 'p'.repeat(65) }, column: 'parentCode', value: 'p'.repeat(65), code: 'too-long' },
    { rule: 'own parent', raw: { code: 'A', name: 'n', parentcode: 'A' }, column: 'parentCode', value: 'A', code: 'invalid-value' },
  ])('$rule → $code', ({ raw, column, value, code }) => {
    // Act
    const errors = rowErrors(raw);

    // Assess
    expect(errors).toEqual([{ rowNumber: 2, column, value, code, message: expect.stringContaining(column) }]);
  });

  it('reports every problem of the row at once', () => {
    // Act
    const errors = rowErrors({ code: '', name: '', type: 'shelf', parentcode: 'P\n' });

    // Assess
    expect(errors.map((error) => [error.column, error.code])).toEqual([
      ['code', 'required'],
      ['name', 'required'],
      ['type', 'invalid-value'],
      ['parentCode', 'invalid-value'],
    ]);
  });
});

describe('locationsKind.naturalKeyOf and references', () => {
  it.each<{ raw: RawRow; references: ReturnType<typeof locationsKind.references> }>([
    { raw: { code: 'B1', name: 'b', parentcode: 'WH1' }, references: [{ entity: 'location', key: 'WH1', column: 'parentCode', code: 'unknown-location' }] },
    { raw: { code: 'B1', name: 'b', parentcode: '' }, references: [] },
    { raw: { code: 'B1', name: 'b' }, references: [] },
  ])('keys by code; refers to parentCode ($raw.parentcode)', ({ raw, references }) => {
    // Prepare
    const row = parsedRow(raw);

    // Act / Assess
    expect(locationsKind.naturalKeyOf(row)).toBe('B1');
    expect(locationsKind.references(row)).toEqual(references);
  });
});

describe('locationsKind.decide', () => {
  it.each<DuplicateStrategy>(['skip', 'update', 'fail'])('creates a new location with defaults and no events (strategy %s)', (strategy) => {
    // Act
    const decision = locationsKind.decide(parsedRow({ code: 'B9', name: 'Bin 9' }), undefined, strategy, context());

    // Assess
    expect(decision).toEqual({
      action: 'created',
      record: { id: NEW_ID, code: 'B9', name: 'Bin 9', type: 'bin', parentCode: null, createdAt: NOW, updatedAt: NOW },
      events: [],
    });
  });

  it('creates with type and parent', () => {
    // Act
    const decision = locationsKind.decide(parsedRow({ code: 'Z1', name: 'Zone', type: 'zone', parentcode: 'WH1' }), undefined, 'fail', context());

    // Assess
    expect(decision.action === 'created' && decision.record).toMatchObject({ type: 'zone', parentCode: 'WH1' });
  });

  it('skips an existing location with strategy skip', () => {
    // Act
    const decision = locationsKind.decide(parsedRow({ code: existing.code, name: 'Other' }), existing, 'skip', context());

    // Assess
    expect(decision).toEqual({ action: 'skipped', events: [] });
  });

  it('fails an existing location with strategy fail as duplicate', () => {
    // Act
    const decision = locationsKind.decide(parsedRow({ code: existing.code, name: existing.name }), existing, 'fail', context(4));

    // Assess
    expect(decision).toEqual({
      action: 'failed',
      error: { rowNumber: 4, column: 'code', value: existing.code, code: 'duplicate', message: expect.stringContaining(existing.code) },
    });
  });

  it.each<{ rule: string; raw: RawRow; expected: Partial<Location> | null }>([
    { rule: 'rename', raw: { name: 'Renamed' }, expected: { name: 'Renamed' } },
    { rule: 'empty parentCode clears the parent', raw: { parentcode: '' }, expected: { parentCode: null } },
    { rule: 'new parent', raw: { parentcode: 'WH1-B' }, expected: { parentCode: 'WH1-B' } },
    { rule: 'empty type resets it to bin (no change here)', raw: { type: '' }, expected: null },
    { rule: 'type change', raw: { type: 'zone' }, expected: { type: 'zone' } },
    { rule: 'absent columns unchanged', raw: {}, expected: null },
    { rule: 'same values', raw: { type: 'bin', parentcode: 'WH1-A' }, expected: null },
  ])('update: $rule', ({ raw, expected }) => {
    // Prepare
    const row = parsedRow({ code: existing.code, name: existing.name, ...raw });

    // Act
    const decision = locationsKind.decide(row, existing, 'update', context());

    // Assess
    if (expected === null) expect(decision).toEqual({ action: 'skipped', events: [] });
    else expect(decision).toEqual({ action: 'updated', record: { ...existing, ...expected, updatedAt: NOW }, events: [] });
  });
});
