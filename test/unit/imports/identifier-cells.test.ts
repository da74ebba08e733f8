import { describe, expect, it } from 'vitest';
import { RowReader } from '../../../lib/imports/domain/cells.ts';
import { IMPORT_KINDS, importKind } from '../../../lib/imports/domain/kinds.ts';
import type { RawRow } from '../../../lib/imports/domain/types.ts';

/**
 * Identifier cells (skus, codes, references, lots, units, barcodes) refuse invisible and bidi
 * format characters (Unicode general category Cf) anywhere in the value: `WIDGET\u200B` would
 * otherwise be a second item that looks exactly like WIDGET (docs/imports.md "Files").
 */

/** Zero-width, joiners, word joiner, BOM, soft hyphen, marks and every bidi embedding, override and isolate. */
const FORMAT_CHARACTERS = [
  '\u00AD',
  '\u061C',
  '\u200B',
  '\u200C',
  '\u200D',
  '\u200E',
  '\u200F',
  '\u202A',
  '\u202B',
  '\u202C',
  '\u202D',
  '\u202E',
  '\u2060',
  '\u2066',
  '\u2067',
  '\u2068',
  '\u2069',
  '\uFEFF',
];

const codePoint = (character: string) => `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;

describe('RowReader identifiers: format characters', () => {
  it.each(FORMAT_CHARACTERS.map((character) => [codePoint(character), character]))(
    'refuses %s inside a required identifier with invalid-value naming it',
    (name, character) => {
      // Prepare
      const cells = new RowReader({ sku: `WID${character}GET` }, 4);

      // Act
      const value = cells.requiredIdentifier('sku', 64);

      // Assess
      expect(value).toBeUndefined();
      expect(cells.errors).toEqual([
        { rowNumber: 4, column: 'sku', value: `WID${character}GET`, code: 'invalid-value', message: expect.stringContaining(name) },
      ]);
    },
  );

  it.each([
    ['at the end', 'L-1\u202E'],
    ['at the start', '\u2066L-1'],
    ['between astral characters', '📦\u200D📦'],
  ])('refuses a format character %s of an optional identifier', (_where, cell) => {
    // Prepare
    const cells = new RowReader({ lot: cell }, 2);

    // Act
    const value = cells.optionalIdentifier('lot', 64);

    // Assess
    expect(value).toBeUndefined();
    expect(cells.errors).toEqual([expect.objectContaining({ column: 'lot', value: cell, code: 'invalid-value' })]);
  });

  it('keeps format characters in free text (a ZWJ emoji sequence, an Arabic name with its mark)', () => {
    // Prepare
    const cells = new RowReader({ name: '👩\u200D🔧 Mechanic \u061Cمفتاح' }, 1);

    // Act
    const value = cells.requiredText('name', 200);

    // Assess
    expect(value).toBe('👩\u200D🔧 Mechanic \u061Cمفتاح');
    expect(cells.errors).toEqual([]);
  });

  it('still accepts visible non-ASCII identifiers (accents, CJK, astral)', () => {
    // Prepare
    const cells = new RowReader({ sku: 'ÉCROU-螺母-𝔸' }, 1);

    // Act
    const value = cells.requiredIdentifier('sku', 64);

    // Assess
    expect(value).toBe('ÉCROU-螺母-𝔸');
    expect(cells.errors).toEqual([]);
  });
});

/**
 * Valid rows of each kind, with every identifier column filled (lower-cased names, as the reader
 * keys them). A builds row naming a source also reports componentSku `required` when its
 * componentSku is invalid, so componentSku is probed on a row without a source.
 */
const VALID_ROWS: Record<string, Array<{ row: RawRow; identifiers: string[] }>> = {
  items: [{ row: { sku: 'WIDGET', name: 'Widget', unit: 'ea', barcode: '4006381333931' }, identifiers: ['sku', 'unit', 'barcode'] }],
  locations: [{ row: { code: 'A1', name: 'Aisle 1', parentcode: 'W1' }, identifiers: ['code', 'parentCode'] }],
  'stock-adjustments': [
    {
      row: { reference: 'ADJ-1', sku: 'WIDGET', locationcode: 'A1', quantitydelta: '-2', lot: 'L-1' },
      identifiers: ['reference', 'sku', 'locationCode', 'lot'],
    },
  ],
  'stock-transfers': [
    {
      row: { reference: 'TRF-1', sku: 'WIDGET', fromlocationcode: 'A1', tolocationcode: 'B1', quantity: '1', lot: 'L-1' },
      identifiers: ['reference', 'sku', 'fromLocationCode', 'toLocationCode', 'lot'],
    },
  ],
  'stock-counts': [
    {
      row: { countreference: 'CNT-1', locationcode: 'A1', sku: 'WIDGET', countedquantity: '3', lot: 'L-1' },
      identifiers: ['countReference', 'locationCode', 'sku', 'lot'],
    },
  ],
  'po-receipts': [
    { row: { ponumber: 'PO-1', sku: 'WIDGET', locationcode: 'A1', quantity: '10', lot: 'L-1' }, identifiers: ['poNumber', 'sku', 'locationCode', 'lot'] },
  ],
  boms: [
    {
      row: { bomcode: 'KIT-1', targetsku: 'KIT', componentsku: 'NUT', quantity: '2', unit: 'ea' },
      identifiers: ['bomCode', 'targetSku', 'componentSku', 'unit'],
    },
  ],
  builds: [
    {
      row: {
        buildreference: 'BLD-1',
        bomcode: 'KIT-1',
        quantity: '1',
        locationcode: 'A1',
        outputlot: 'OUT-1',
        componentsku: 'NUT',
        sourcelot: 'L-1',
        sourcelocationcode: 'B1',
      },
      identifiers: ['buildReference', 'bomCode', 'locationCode', 'outputLot', 'sourceLot', 'sourceLocationCode'],
    },
    { row: { buildreference: 'BLD-1', bomcode: 'KIT-1', quantity: '1', locationcode: 'A1', componentsku: 'NUT' }, identifiers: ['componentSku'] },
  ],
};

const validRows = Object.entries(VALID_ROWS).flatMap(([kind, rows]) => rows.map(({ row }) => ({ kind, row })));

const cases = Object.entries(VALID_ROWS).flatMap(([kind, rows]) =>
  rows.flatMap(({ row, identifiers }) =>
    identifiers.flatMap((column) =>
      ['\u200B', '\u202E', '\u2067', '\uFEFF'].map((character) => ({ kind, row, column, character, name: codePoint(character) })),
    ),
  ),
);

function parse(kind: string, row: RawRow) {
  const definition = importKind(kind);
  if (definition === undefined) throw new Error(`no import kind ${kind}`);
  return definition.parseRow(row, 5);
}

describe('every import kind: identifier cells refuse format characters', () => {
  it('covers every registered kind', () => {
    // Act / Assess
    expect(Object.keys(VALID_ROWS).sort()).toEqual(IMPORT_KINDS.map((kind) => kind.kind).sort());
  });

  it.each(validRows)('$kind: the valid row $row parses', ({ kind, row }) => {
    // Act / Assess
    expect(parse(kind, row)).toMatchObject({ ok: true });
  });

  it.each(cases)('$kind: $name in $column → invalid-value on $column', ({ kind, row, column, character, name }) => {
    // Prepare
    const key = column.toLowerCase();
    const original = row[key] ?? '';
    const cell = `${original.slice(0, 1)}${character}${original.slice(1)}`;

    // Act
    const parsed = parse(kind, { ...row, [key]: cell });

    // Assess
    expect(parsed).toEqual({ ok: false, errors: [{ rowNumber: 5, column, value: cell, code: 'invalid-value', message: expect.stringContaining(name) }] });
  });
});
