import { describe, expect, it } from 'vitest';
import { MAX_COLUMNS, readCsv } from '../../../lib/platform/csv/csv-reader.ts';
import { itemsKind } from '../../../lib/imports/domain/items-kind.ts';

/** Headers come from the file: their width and echoed names are bounded. */
describe('readCsv header limits', () => {
  it(`fails a header wider than ${MAX_COLUMNS} columns as not-csv`, async () => {
    // Prepare: 600k distinct names would take minutes with a quadratic duplicate check
    const header = ['sku', 'name', ...Array.from({ length: 600_000 }, (_, index) => `c${index}`)].join(',');
    // Act
    const result = await readCsv(Buffer.from(`${header}\nA,a\n`), itemsKind);
    // Assess
    expect(result).toMatchObject({ ok: false, failure: { code: 'not-csv' } });
  });

  it('reports at most 20 unknown columns, with names clipped', async () => {
    const unknown = Array.from({ length: 50 }, (_, index) => `extra${index}${'y'.repeat(300)}`);
    const result = await readCsv(Buffer.from(`sku,name,${unknown.join(',')}\nA,a\n`), itemsKind);
    if (!result.ok) throw new Error('expected the file to be read');
    expect(result.warnings).toHaveLength(20);
    for (const warning of result.warnings) expect(warning.column.length).toBeLessThanOrEqual(101);
  });

  it('still names every duplicate column once', async () => {
    expect(await readCsv(Buffer.from('sku,name,SKU,Name\nA,a,B,b\n'), itemsKind)).toMatchObject({ ok: false, failure: { code: 'duplicate-column' } });
  });
});
