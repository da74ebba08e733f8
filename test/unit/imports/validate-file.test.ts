import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../lib/platform/csv/csv-reader.ts';
import { bomsKind } from '../../../lib/imports/domain/boms-kind.ts';
import { itemsKind } from '../../../lib/imports/domain/items-kind.ts';
import type { ReferenceEntity } from '../../../lib/imports/domain/kind-definition.ts';
import { locationsKind } from '../../../lib/imports/domain/locations-kind.ts';
import { referencedKeys, parseRows, validateRows, type KnownKeys } from '../../../lib/imports/domain/validate-file.ts';

async function csv(text: string) {
  const result = await readCsv(Buffer.from(text), locationsKind);
  if (!result.ok) throw new Error(result.failure.message);
  return result;
}

/** Tenant data as the caller would have loaded it, and a log of what validateRows asked for. */
function tenant(keys: Partial<Record<ReferenceEntity, string[]>>) {
  const asked: Array<[ReferenceEntity, string[]]> = [];
  const knownKeys: KnownKeys = (entity, wanted) => {
    asked.push([entity, [...wanted]]);
    const existing = new Set(keys[entity] ?? []);
    return new Set(wanted.filter((key) => existing.has(key)));
  };
  return { knownKeys, asked };
}

describe('parseRows', () => {
  it('separates valid rows from cell errors and carries structural row errors, by row number', async () => {
    // Prepare
    const file = await csv('code,name,type\nA,a,bin\nB,,shelf\nC,c,bin,extra\nD,d,zone\n');

    // Act
    const parsed = parseRows(locationsKind, file);

    // Assess
    expect(parsed.parsed.map((row) => [row.rowNumber, row.row.code])).toEqual([
      [1, 'A'],
      [4, 'D'],
    ]);
    expect(parsed.errors.map((error) => [error.rowNumber, error.column, error.code])).toEqual([
      [2, 'name', 'required'],
      [2, 'type', 'invalid-value'],
      [3, null, 'extra-cells'],
    ]);
  });
});

describe('referencedKeys', () => {
  it('collects the keys the rows refer to, per entity, and not the rows own natural keys', async () => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv('code,name,parentCode\nWH1,w,\nA,a,WH1\nB,b,WH9\n'));

    // Act
    const keys = referencedKeys(locationsKind, parsed.parsed);

    // Assess
    expect(keys).toEqual(new Map([['location', new Set(['WH1', 'WH9'])]]));
  });

  it('collects nothing for items, which refer to nothing', async () => {
    // Prepare
    const file = await readCsv(Buffer.from('sku,name\nA,a\nB,b\nA,again\n'), itemsKind);
    if (!file.ok) throw new Error('unreachable');

    // Act
    const keys = referencedKeys(itemsKind, parseRows(itemsKind, file).parsed);

    // Assess
    expect(keys).toEqual(new Map());
  });
});

describe('validateRows', () => {
  it('on resume, lets only the tenant vouch for a key defined at or before the checkpoint', async () => {
    // Prepare: rows 1..2 were handled by an earlier run; row 1 (A) failed there, so A is not the tenant's
    const parsed = parseRows(locationsKind, await csv('code,name,parentCode\nA,a,\nB,b,WH1\nC,c,A\nD,d,B\n'));

    // Act: WH1 and B exist in the tenant now (B was applied by the earlier run)
    const result = validateRows(locationsKind, parsed, tenant({ location: ['WH1', 'B'] }).knownKeys, 2);

    // Assess: C's parent A is neither the tenant's nor an earlier row's still to apply; D's parent B is the tenant's
    expect(result.errors.map((error) => [error.rowNumber, error.code])).toEqual([[3, 'unknown-location']]);
    expect(result.valid.map((row) => row.rowNumber)).toEqual([1, 2, 4]);
  });

  it('marks a repeated natural key as duplicate-in-file on the later rows, naming the first row', async () => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv('code,name\nA,a\nB,b\nA,again\nA,third\n'));

    // Act
    const result = validateRows(locationsKind, parsed, tenant({}).knownKeys);

    // Assess
    expect(result.valid.map((row) => row.rowNumber)).toEqual([1, 2]);
    expect(result.errors).toEqual([
      { rowNumber: 3, column: 'code', value: 'A', code: 'duplicate-in-file', message: expect.stringContaining('row 1') },
      { rowNumber: 4, column: 'code', value: 'A', code: 'duplicate-in-file', message: expect.stringContaining('row 1') },
    ]);
  });

  it('compares keys exactly (case-sensitive)', async () => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv('code,name\nA,a\na,b\n'));

    // Act
    const result = validateRows(locationsKind, parsed, tenant({}).knownKeys);

    // Assess
    expect(result.errors).toEqual([]);
  });

  it.each([
    ['an earlier row of the file', 'code,name,parentCode\nWH1,w,\nA,a,WH1\n', [], []],
    ['a tenant location', 'code,name,parentCode\nA,a,WH1\n', ['WH1'], []],
    ['a tenant location updated by an earlier row', 'code,name,parentCode\nWH1,w,\nA,a,WH1\n', ['WH1'], []],
    ['a later row of the file', 'code,name,parentCode\nA,a,WH1\nWH1,w,\n', [], [[1, 'unknown-location']]],
    ['nothing', 'code,name,parentCode\nA,a,WH9\n', ['WH1'], [[1, 'unknown-location']]],
    [
      'an earlier row that is invalid',
      'code,name,parentCode,type\nWH1,w,,shelf\nA,a,WH1,bin\n',
      [],
      [
        [1, 'invalid-value'],
        [2, 'unknown-location'],
      ],
    ],
    [
      'an earlier row whose own parent is unknown',
      'code,name,parentCode\nZ,z,WH9\nA,a,Z\n',
      [],
      [
        [1, 'unknown-location'],
        [2, 'unknown-location'],
      ],
    ],
    ['an earlier duplicate row (the first occurrence counts)', 'code,name,parentCode\nWH1,w,\nWH1,w2,\nA,a,WH1\n', [], [[2, 'duplicate-in-file']]],
  ])('resolves parentCode against %s', async (_name, text, tenantLocations, expected) => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv(text));

    // Act
    const result = validateRows(locationsKind, parsed, tenant({ location: tenantLocations }).knownKeys);

    // Assess
    expect(result.errors.map((error) => [error.rowNumber, error.code])).toEqual(expected);
  });

  it('reports an unknown parent with column and value', async () => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv('code,name,parentCode\nA,a,WH9\n'));

    // Act
    const result = validateRows(locationsKind, parsed, tenant({}).knownKeys);

    // Assess
    expect(result.errors).toEqual([{ rowNumber: 1, column: 'parentCode', value: 'WH9', code: 'unknown-location', message: expect.stringContaining('"WH9"') }]);
    expect(result.valid).toEqual([]);
  });

  it('reports duplicate and unknown reference of the same row together', async () => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv('code,name,parentCode\nA,a,\nA,a,NOPE\n'));

    // Act
    const result = validateRows(locationsKind, parsed, tenant({}).knownKeys);

    // Assess
    expect(result.errors.map((error) => [error.rowNumber, error.code])).toEqual([
      [2, 'duplicate-in-file'],
      [2, 'unknown-location'],
    ]);
  });

  it('orders every error by row number, cell errors and file errors merged', async () => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv('code,name,parentCode\nA,a,X\nB,,\nA,a,\nC,c,,z\nD,d,A\n'));

    // Act
    const result = validateRows(locationsKind, parsed, tenant({}).knownKeys);

    // Assess
    expect(result.errors.map((error) => [error.rowNumber, error.code])).toEqual([
      [1, 'unknown-location'],
      [2, 'required'],
      [3, 'duplicate-in-file'],
      [4, 'extra-cells'],
      [5, 'unknown-location'],
    ]);
    expect(result.valid).toEqual([]);
  });

  it('asks for the tenant keys once per referenced entity', async () => {
    // Prepare
    const parsed = parseRows(locationsKind, await csv('code,name,parentCode\nA,a,WH1\nB,b,WH1\nC,c,A\n'));
    const { knownKeys, asked } = tenant({ location: ['WH1'] });

    // Act
    const result = validateRows(locationsKind, parsed, knownKeys);

    // Assess
    expect(asked).toEqual([['location', ['WH1', 'A']]]);
    expect(result.valid.map((row) => row.row.code)).toEqual(['A', 'B', 'C']);
  });

  it('does not ask for keys when no row refers to anything', async () => {
    // Prepare
    const file = await readCsv(Buffer.from('sku,name\nA,a\n'), itemsKind);
    if (!file.ok) throw new Error('unreachable');
    const { knownKeys, asked } = tenant({});

    // Act
    const result = validateRows(itemsKind, parseRows(itemsKind, file), knownKeys);

    // Assess
    expect(asked).toEqual([]);
    expect(result).toEqual({ valid: [{ rowNumber: 1, row: expect.objectContaining({ sku: 'A' }) }], errors: [] });
  });

  it('handles a full items file of MAX_ROWS rows', async () => {
    // Prepare
    const lines = Array.from({ length: itemsKind.maxRows }, (_, i) => `SKU-${i},Item ${i},ea,,Cat ${i % 50},,${i % 100},none`);
    const file = Buffer.from(`sku,name,unit,description,category,barcode,reorderPoint,trackingMode\n${lines.join('\n')}\n`);

    // Act
    const read = await readCsv(file, itemsKind);
    if (!read.ok) throw new Error(read.failure.message);
    const parsed = parseRows(itemsKind, read);
    const result = validateRows(itemsKind, parsed, tenant({}).knownKeys);

    // Assess
    expect(file.length).toBeLessThanOrEqual(itemsKind.maxFileBytes);
    expect(result.valid).toHaveLength(itemsKind.maxRows);
    expect(result.errors).toEqual([]);
  });
});

describe('validateRows for a kind that groups rows', () => {
  it('spoils the whole group of a row the CSV reader refused (extra-cells): its other rows get group-has-errors', async () => {
    // Prepare: BOM KIT1 on rows 1 and 2; row 2 has a cell past the header
    const read = await readCsv(
      Buffer.from('bomCode,name,targetSku,componentSku,quantity\nKIT1,Kit,KIT,NUT,2\nKIT1,Kit,KIT,SCREW,4,x\nKIT2,Kit 2,KIT,NUT,1\n'),
      bomsKind,
    );
    if (!read.ok) throw new Error(read.failure.message);
    const { knownKeys } = tenant({ item: ['KIT', 'NUT', 'SCREW'] });

    // Act
    const validated = validateRows(bomsKind, parseRows(bomsKind, read), knownKeys);

    // Assess: nothing of KIT1 is applied; KIT2 is
    expect(validated.valid.map(({ rowNumber }) => rowNumber)).toEqual([3]);
    expect(validated.errors.map((error) => [error.rowNumber, error.code])).toEqual([
      [1, 'group-has-errors'],
      [2, 'extra-cells'],
    ]);
  });
});
