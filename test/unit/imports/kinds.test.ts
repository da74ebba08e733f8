import { describe, expect, it } from 'vitest';
import { IMPORT_KINDS, importKind, kindSummary } from '../../../lib/imports/domain/kinds.ts';
import { DUPLICATE_STRATEGIES, MAX_FILE_BYTES, MAX_ROWS } from '../../../lib/imports/domain/types.ts';

describe('IMPORT_KINDS', () => {
  it('lists items, locations, the stock kinds, boms, then builds', () => {
    // Act / Assess
    expect(IMPORT_KINDS.map((def) => def.kind)).toEqual([
      'items',
      'locations',
      'stock-adjustments',
      'stock-transfers',
      'stock-counts',
      'po-receipts',
      'boms',
      'builds',
    ]);
  });

  it.each(IMPORT_KINDS.map((def) => [def.kind, def] as const))('%s is complete and consistent', (_kind, def) => {
    // Act
    const columnNames = def.columns.map((column) => column.name);

    // Assess
    expect(def.title).not.toBe('');
    expect(def.description).not.toBe('');
    expect(new Set(columnNames.map((name) => name.toLowerCase())).size).toBe(columnNames.length);
    // A natural key names columns of the kind; all required but an optional lot (null is a key part too).
    expect(def.naturalKey.every((key) => def.columns.some((column) => column.name === key && (column.required || key === 'lot')))).toBe(true);
    expect(def.columns.every((column) => column.description.length > 0)).toBe(true);
    expect(def.columns.every((column) => (column.type === 'enum') === (column.values !== undefined))).toBe(true);
    expect(def.duplicateStrategies).toEqual(DUPLICATE_STRATEGIES);
    expect(def.maxFileBytes).toBe(MAX_FILE_BYTES);
    expect(def.maxRows).toBe(MAX_ROWS);
  });
});

describe('importKind', () => {
  it.each([
    ['items', 'items'],
    ['locations', 'locations'],
    ['Items', undefined],
    ['stock-adjustments', 'stock-adjustments'],
    ['builds', 'builds'],
    ['Builds', undefined],
    ['', undefined],
    ['toString', undefined],
  ])('%j → %s', (name, expected) => {
    // Act
    const def = importKind(name);

    // Assess
    expect(def?.kind).toBe(expected);
  });
});

describe('kindSummary', () => {
  it('returns exactly the public fields', () => {
    // Prepare
    const def = importKind('locations');
    if (def === undefined) throw new Error('unreachable');

    // Act
    const summary = kindSummary(def);

    // Assess
    expect(summary).toStrictEqual({
      kind: 'locations',
      title: 'Locations',
      description: def.description,
      columns: [
        { name: 'code', required: true, type: 'string', description: expect.any(String) },
        { name: 'name', required: true, type: 'string', description: expect.any(String) },
        { name: 'type', required: false, type: 'enum', values: ['warehouse', 'zone', 'bin'], description: expect.any(String) },
        { name: 'parentCode', required: false, type: 'string', description: expect.any(String) },
      ],
      naturalKey: ['code'],
      duplicateStrategies: ['skip', 'update', 'fail'],
      maxFileBytes: 4 * 1024 * 1024,
      maxRows: 100_000,
    });
    expect(JSON.parse(JSON.stringify(summary))).toEqual(summary);
  });

  it('describes the items columns in order', () => {
    // Prepare
    const def = importKind('items');
    if (def === undefined) throw new Error('unreachable');

    // Act
    const summary = kindSummary(def);

    // Assess
    expect(summary.columns.map((column) => [column.name, column.required, column.type])).toEqual([
      ['sku', true, 'string'],
      ['name', true, 'string'],
      ['unit', false, 'string'],
      ['description', false, 'string'],
      ['category', false, 'string'],
      ['barcode', false, 'string'],
      ['reorderPoint', false, 'number'],
      ['trackingMode', false, 'enum'],
    ]);
    expect(summary.naturalKey).toEqual(['sku']);
  });
});
