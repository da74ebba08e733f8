import { describe, expect, it } from 'vitest';
import { bomsKind } from '../../../lib/imports/domain/boms-kind.ts';
import type { RawRow } from '../../../lib/imports/domain/types.ts';

/** Cell rules of the `boms` kind (docs/imports.md "Kinds"); whole files run in test/e2e/boms-import.test.ts. */

const row = (cells: Partial<Record<string, string>>): RawRow => ({ bomcode: 'B-1', targetsku: 'T-1', componentsku: 'C-1', quantity: '2', ...cells }) as RawRow;

describe('boms kind: parseRow', () => {
  it('reads a line with its optional cells; empty optional cells are null', () => {
    // Act
    const parsed = bomsKind.parseRow(row({ name: 'Pump', unit: 'kg', scrappercent: '2.5', notes: '' }), 4);

    // Assess
    expect(parsed).toEqual({
      ok: true,
      value: { bomCode: 'B-1', name: 'Pump', targetSku: 'T-1', componentSku: 'C-1', quantity: 2, unit: 'kg', scrapPercent: 2.5, notes: null },
    });
  });

  it.each([
    { label: 'a missing quantity', cells: { quantity: '' }, column: 'quantity', code: 'required' },
    { label: 'a zero quantity', cells: { quantity: '0' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a negative quantity', cells: { quantity: '-1' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a quantity with 7 decimals', cells: { quantity: '0.0000001' }, column: 'quantity', code: 'invalid-number' },
    { label: 'a word as quantity', cells: { quantity: 'two' }, column: 'quantity', code: 'invalid-number' },
    { label: 'scrapPercent above 100', cells: { scrappercent: '101' }, column: 'scrapPercent', code: 'invalid-number' },
    { label: 'a negative scrapPercent', cells: { scrappercent: '-1' }, column: 'scrapPercent', code: 'invalid-number' },
    { label: 'a scrapPercent with 7 decimals', cells: { scrappercent: '0.0000001' }, column: 'scrapPercent', code: 'invalid-number' },
    { label: 'a bomCode with a trailing space', cells: { bomcode: 'B-1 ' }, column: 'bomCode', code: 'invalid-value' },
    { label: 'no componentSku', cells: { componentsku: '' }, column: 'componentSku', code: 'required' },
  ])('reports $label on its column', ({ cells, column, code }) => {
    // Act
    const parsed = bomsKind.parseRow(row(cells), 7);

    // Assess
    expect(parsed).toEqual({ ok: false, errors: [expect.objectContaining({ rowNumber: 7, column, code })] });
  });

  it('refers to the target and the component item, each an unknown-sku when missing', () => {
    // Prepare
    const parsed = bomsKind.parseRow(row({}), 1);
    if (!parsed.ok) throw new Error('expected a valid row');

    // Act / Assess
    expect(bomsKind.references(parsed.value)).toEqual([
      { entity: 'item', key: 'T-1', column: 'targetSku', code: 'unknown-sku' },
      { entity: 'item', key: 'C-1', column: 'componentSku', code: 'unknown-sku' },
    ]);
    expect(bomsKind.groupKeyOf?.(row({}))).toBe('B-1');
    // A stray space makes the row invalid; it must still belong to (and spoil) its BOM.
    expect(bomsKind.groupKeyOf?.(row({ bomcode: 'B-1 ' }))).toBe('B-1');
  });
});
