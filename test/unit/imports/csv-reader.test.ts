import { describe, expect, it } from 'vitest';
import { readCsv, type CsvReadResult, type CsvReadSpec } from '../../../lib/platform/csv/csv-reader.ts';
import { itemsKind } from '../../../lib/imports/domain/items-kind.ts';

const spec: CsvReadSpec = {
  columns: [
    { name: 'sku', required: true, type: 'string', description: 'key' },
    { name: 'name', required: true, type: 'string', description: 'name' },
    { name: 'reorderPoint', required: false, type: 'number', description: 'number' },
  ],
  maxRows: 5,
};

function read(text: string | Buffer, readSpec: CsvReadSpec = spec): Promise<CsvReadResult> {
  return readCsv(typeof text === 'string' ? Buffer.from(text, 'utf8') : text, readSpec);
}

function ok(result: CsvReadResult) {
  if (!result.ok) throw new Error(`expected ok, got ${result.failure.code}: ${result.failure.message}`);
  return result;
}

function failure(result: CsvReadResult) {
  if (result.ok) throw new Error('expected a failure');
  return result.failure;
}

describe('readCsv: encoding and line endings', () => {
  it('drops a UTF-8 BOM before the header', async () => {
    // Prepare
    const file = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('sku,name\nA-1,Widget\n')]);

    // Act
    const result = ok(await read(file));

    // Assess
    expect(result.header).toEqual(['sku', 'name']);
    expect(result.rows).toEqual([{ rowNumber: 1, raw: { sku: 'A-1', name: 'Widget' } }]);
  });

  it.each([
    ['LF', 'sku,name\nA,a\nB,b\n'],
    ['CRLF', 'sku,name\r\nA,a\r\nB,b\r\n'],
    ['CR', 'sku,name\rA,a\rB,b'],
    ['mixed', 'sku,name\r\nA,a\nB,b\r'],
  ])('reads %s line endings', async (_name, text) => {
    // Act
    const result = ok(await read(text));

    // Assess
    expect(result.rows.map((row) => row.raw)).toEqual([
      { sku: 'A', name: 'a' },
      { sku: 'B', name: 'b' },
    ]);
  });

  it('keeps non-ASCII text', async () => {
    // Act
    const result = ok(await read('sku,name\nÖL-1,Hydrauliköl 😀 €\n'));

    // Assess
    expect(result.rows[0]?.raw).toEqual({ sku: 'ÖL-1', name: 'Hydrauliköl 😀 €' });
  });

  it.each([
    ['invalid start byte', Buffer.from([0xff, 0xfe, 0x41]), /UTF-16/],
    ['Latin-1 é', Buffer.from('sku,name\nA,caf\xe9\n', 'latin1'), /line 2/],
    ['truncated sequence', Buffer.from([0x73, 0x6b, 0x75, 0xe2, 0x82]), /line 1/],
    ['overlong encoding', Buffer.from([0xc0, 0xaf]), /not valid UTF-8/],
    ['encoded surrogate', Buffer.from([0xed, 0xa0, 0x80]), /not valid UTF-8/],
    ['zip (xlsx) signature', Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00, 0x06, 0x00, 0x08, 0x00, 0x00, 0x00, 0x21, 0x00, 0x9a]), /xlsx/],
  ])('fails not-utf8 on %s', async (_name, file, message) => {
    // Act
    const result = failure(await read(file));

    // Assess
    expect(result.code).toBe('not-utf8');
    expect(result.message).toMatch(message);
  });

  it('fails not-csv on NUL characters (e.g. UTF-16 without BOM)', async () => {
    // Prepare
    const file = Buffer.from('sku,name\nA,a\n', 'utf16le');

    // Act
    const result = failure(await read(file));

    // Assess
    expect(result.code).toBe('not-csv');
    expect(result.message).toMatch(/NUL/);
  });
});

describe('readCsv: quoting', () => {
  it.each([
    ['comma', '"A,1",x', { sku: 'A,1', name: 'x' }],
    ['line break', '"A\nB","x\r\ny"', { sku: 'A\nB', name: 'x\r\ny' }],
    ['escaped quote', '"say ""hi""",x', { sku: 'say "hi"', name: 'x' }],
    ['empty quoted cell', 'A,""', { sku: 'A', name: '' }],
    ['quote inside an unquoted cell', 'A,12" ruler', { sku: 'A', name: '12" ruler' }],
    ['surrounding spaces kept', ' A , x ', { sku: ' A ', name: ' x ' }],
  ])('reads a quoted %s', async (_name, line, raw) => {
    // Act
    const result = ok(await read(`sku,name\n${line}\n`));

    // Assess
    expect(result.rows).toEqual([{ rowNumber: 1, raw }]);
  });

  it.each([
    ['data row', 'sku,name\nA,a\nB,"unclosed\nC,c\n', /^Row 2 \(line 3\) is not valid CSV: a quoted cell is not closed/],
    ['data row after a blank line and a multi-line cell', 'sku,name\n"A\n1",a\n\nB,"oops\n', /^Row 3 \(line 5\)/],
    ['header', '"sku,name\nA,a\n', /^The header row \(line 1\)/],
  ])('fails not-csv with the row number on an unclosed quote in the %s', async (_name, text, message) => {
    // Act
    const result = failure(await read(text));

    // Assess
    expect(result.code).toBe('not-csv');
    expect(result.message).toMatch(message);
  });

  it.each(['=SUM(A1)', '+1', '-2+3', '@cmd', '=HYPERLINK("http://x","y")'])('returns the formula-like cell %s verbatim', async (cell) => {
    // Prepare
    const quoted = `"${cell.replace(/"/g, '""')}"`;

    // Act
    const result = ok(await read(`sku,name\nA,${quoted}\n`));

    // Assess
    expect(result.rows[0]?.raw.name).toBe(cell);
  });
});

describe('readCsv: header', () => {
  it('matches names case-insensitively and trimmed; keys are the lower-cased column names', async () => {
    // Act
    const result = ok(await read(' SKU ,NaMe,REORDERPOINT\nA,a,5\n'));

    // Assess
    expect(result.header).toEqual([' SKU ', 'NaMe', 'REORDERPOINT']);
    expect(result.rows[0]?.raw).toEqual({ sku: 'A', name: 'a', reorderpoint: '5' });
    expect(result.warnings).toEqual([]);
  });

  it('leaves absent optional columns out of the raw row', async () => {
    // Act
    const result = ok(await read('name,sku\na,A\n'));

    // Assess
    expect(result.rows[0]?.raw).toEqual({ sku: 'A', name: 'a' });
    expect('reorderpoint' in (result.rows[0]?.raw ?? {})).toBe(false);
  });

  it('warns about unknown and unnamed columns and ignores their cells', async () => {
    // Act
    const result = ok(await read('sku,colour,name,,\nA,red,a,x,y\n'));

    // Assess
    expect(result.rows[0]?.raw).toEqual({ sku: 'A', name: 'a' });
    expect(result.warnings).toEqual([
      { column: 'colour', code: 'unknown-column', message: expect.stringContaining('"colour"') },
      { column: '', code: 'unknown-column', message: expect.stringContaining('Columns 4, 5') },
    ]);
  });

  it.each([
    ['one', 'sku,reorderPoint\nA,1\n', 'name'],
    ['both', 'reorderPoint\n1\n', 'sku, name'],
  ])('fails missing-required-column naming %s missing column(s)', async (_name, text, missing) => {
    // Act
    const result = failure(await read(text));

    // Assess
    expect(result.code).toBe('missing-required-column');
    expect(result.message).toContain(missing);
  });

  it('hints at a semicolon separator', async () => {
    // Act
    const result = failure(await read('sku;name\nA;a\n'));

    // Assess
    expect(result.code).toBe('missing-required-column');
    expect(result.message).toMatch(/";" as separator/);
  });

  it.each([
    ['exact', 'sku,name,sku\n'],
    ['case-insensitive', 'sku,name,SKU\n'],
    ['optional known column', 'sku,name,reorderPoint, REORDERPOINT \n'],
  ])('fails duplicate-column (%s)', async (_name, text) => {
    // Act
    const result = failure(await read(text));

    // Assess
    expect(result.code).toBe('duplicate-column');
  });

  it.each([
    ['case-insensitive', 'sku,name,Notes,notes\nA,a,x,y\n', 'Notes'],
    ['trimmed', 'sku,name,x, X \nA,a,x,y\n', 'x'],
    ['three times', 'sku,notes,name,NOTES,Notes\nA,x,a,y,z\n', 'notes'],
  ])('reads a file whose unknown column is repeated (%s): one warning naming it, its cells ignored', async (_name, text, column) => {
    // Act
    const result = ok(await read(text));

    // Assess
    expect(result.rows).toEqual([{ rowNumber: 1, raw: { sku: 'A', name: 'a' } }]);
    expect(result.warnings).toEqual([{ column, code: 'unknown-column', message: expect.stringContaining(`"${column}"`) }]);
  });

  it('names only the known columns in duplicate-column when unknown ones repeat too', async () => {
    // Act
    const result = failure(await read('sku,name,Notes,notes,SKU\n'));

    // Assess
    expect(result.code).toBe('duplicate-column');
    expect(result.message).toContain('sku');
    expect(result.message).not.toMatch(/notes/i);
  });

  it.each([
    ['empty file', ''],
    ['BOM only', '\uFEFF'],
    ['blank lines only', '\n\r\n  \n,,\n'],
  ])('fails empty-file on %s', async (_name, text) => {
    // Act
    const result = failure(await read(text));

    // Assess
    expect(result.code).toBe('empty-file');
  });

  it.each(['sku,name', 'sku,name\n', 'sku,name\r\n\r\n\n'])('accepts a header without data rows (%j)', async (text) => {
    // Act
    const result = ok(await read(text));

    // Assess
    expect(result.rows).toEqual([]);
    expect(result.rowErrors).toEqual([]);
  });
});

describe('readCsv: rows', () => {
  it('numbers rows by record after the header; blank records keep their number', async () => {
    // Prepare: rows 2 (empty line) and 4 (only commas) and 5 (only spaces) are blank
    const text = 'sku,name\nA,a\n\n"B\nB",b\n,,\n   \nC,c\n';

    // Act
    const result = ok(await read(text));

    // Assess
    expect(result.rows.map((row) => [row.rowNumber, row.raw.sku])).toEqual([
      [1, 'A'],
      [3, 'B\nB'],
      [6, 'C'],
    ]);
  });

  it('numbers from the header when blank lines precede it', async () => {
    // Act
    const result = ok(await read('\n\nsku,name\nA,a\n'));

    // Assess
    expect(result.rows).toEqual([{ rowNumber: 1, raw: { sku: 'A', name: 'a' } }]);
  });

  it('fills missing trailing cells with empty strings', async () => {
    // Act
    const result = ok(await read('sku,name,reorderPoint\nA\n'));

    // Assess
    expect(result.rows[0]?.raw).toEqual({ sku: 'A', name: '', reorderpoint: '' });
  });

  it('ignores extra cells that are empty (trailing commas)', async () => {
    // Act
    const result = ok(await read('sku,name\nA,a,,\n'));

    // Assess
    expect(result.rows).toEqual([{ rowNumber: 1, raw: { sku: 'A', name: 'a' } }]);
    expect(result.rowErrors).toEqual([]);
  });

  it('reports a row with non-empty extra cells as extra-cells and leaves it out', async () => {
    // Act
    const result = ok(await read('sku,name\nA,a\nB,b,surprise,\nC,c\n'));

    // Assess
    expect(result.rows.map((row) => row.rowNumber)).toEqual([1, 3]);
    expect(result.rowErrors).toEqual([
      { rowNumber: 2, column: null, value: 'surprise', code: 'extra-cells', message: 'The row has 4 cells but the header has 2 columns.' },
    ]);
  });

  it.each([
    ['at the limit', 5, true],
    ['over the limit', 6, false],
  ])('counts non-blank data rows against maxRows (%s)', async (_name, count, expectOk) => {
    // Prepare
    const text = `sku,name\n${Array.from({ length: count }, (_, i) => `S${i},n\n\n`).join('')}`;

    // Act
    const result = await read(text);

    // Assess
    expect(result.ok).toBe(expectOk);
    if (!result.ok) {
      expect(result.failure).toEqual({ code: 'too-many-rows', message: 'The file has more than 5 data rows (the limit of this kind).' });
    }
  });

  it('reads with a kind definition as the spec', async () => {
    // Act
    const result = ok(await readCsv(Buffer.from('SKU,Name,Unit,TrackingMode\nA,a,kg,lot\n'), itemsKind));

    // Assess
    expect(result.rows[0]?.raw).toEqual({ sku: 'A', name: 'a', unit: 'kg', trackingmode: 'lot' });
  });
});
