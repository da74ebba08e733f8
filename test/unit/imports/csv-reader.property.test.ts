import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../lib/platform/csv/csv-reader.ts';
import { itemsKind } from '../../../lib/imports/domain/items-kind.ts';
import { locationsKind } from '../../../lib/imports/domain/locations-kind.ts';

/** Text built from the characters that steer a CSV parser, plus some ordinary ones. */
const csvish = fc.string({ unit: fc.constantFrom(...'",\r\n ;\t\uFEFFabSKUskunamecode=+-@é\u0000'), maxLength: 300 });
const header = fc.constantFrom('sku,name', 'SKU,Name,unit', 'code,name,parentCode', 'sku,name,sku', '"sku","name",reorderPoint');

const bytes = fc.oneof(
  fc.uint8Array({ maxLength: 300 }).map((array) => Buffer.from(array)),
  csvish.map((text) => Buffer.from(text, 'utf8')),
  fc.tuple(header, csvish).map(([head, body]) => Buffer.from(`${head}\n${body}`, 'utf8')),
  fc.tuple(header, fc.uint8Array({ maxLength: 100 })).map(([head, tail]) => Buffer.concat([Buffer.from(`${head}\n`), Buffer.from(tail)])),
);

describe('readCsv on arbitrary bytes', () => {
  it.each([itemsKind, locationsKind])('$kind: never throws; always ok or a failure', async (kind) => {
    await fc.assert(
      fc.asyncProperty(bytes, fc.integer({ min: 0, max: 5 }), async (file, maxRows) => {
        // Act
        const result = await readCsv(file, { columns: kind.columns, maxRows });

        // Assess
        if (result.ok) {
          expect(result.rows.length + result.rowErrors.length).toBeLessThanOrEqual(maxRows);
          const numbers = [...result.rows.map((row) => row.rowNumber), ...result.rowErrors.map((error) => error.rowNumber)];
          expect(numbers.every((n) => Number.isInteger(n) && n >= 1)).toBe(true);
          expect(new Set(numbers).size).toBe(numbers.length);
        } else {
          expect(['not-utf8', 'empty-file', 'missing-required-column', 'duplicate-column', 'not-csv', 'too-many-rows']).toContain(result.failure.code);
          expect(result.failure.message.length).toBeGreaterThan(0);
          // The byte-level check locates exactly what TextDecoder refuses.
          if (result.failure.code === 'not-utf8') expect(result.failure.message).toMatch(/first invalid byte at line \d+, byte offset \d+/);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe('readCsv on arbitrary well-formed files', () => {
  const cell = fc.string({ unit: fc.constantFrom(...'ab ,"\n\r=@é😀'), maxLength: 12 });
  const quote = (text: string) => `"${text.replace(/"/g, '""')}"`;

  it('returns every non-blank cell exactly as written, with its row number', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(cell, cell), { maxLength: 20 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean(), async (records, eol, bom) => {
        // Prepare
        const text = `${bom ? '\uFEFF' : ''}sku,name${eol}${records.map(([a, b]) => `${quote(a)},${quote(b)}`).join(eol)}`;

        // Act
        const result = await readCsv(Buffer.from(text, 'utf8'), { columns: itemsKind.columns, maxRows: 100 });

        // Assess
        const expected = records
          .map(([sku, name], index) => ({ rowNumber: index + 1, raw: { sku, name } }))
          .filter(({ raw }) => raw.sku.trim() !== '' || raw.name.trim() !== '');
        expect(result).toEqual({ ok: true, header: ['sku', 'name'], rows: expected, rowErrors: [], refusedRows: [], warnings: [] });
      }),
      { numRuns: 1000 },
    );
  });
});

describe('readCsv on a file that arrives in chunks', () => {
  /** The file cut at the given offsets, as an S3 body streams it (chunk borders fall anywhere, even inside a character). */
  async function* chunksOf(file: Buffer, cuts: number[]): AsyncGenerator<Uint8Array> {
    let start = 0;
    for (const cut of [...new Set(cuts.map((at) => at % (file.length + 1)))].sort((a, b) => a - b)) {
      yield file.subarray(start, cut);
      start = cut;
    }
    yield file.subarray(start);
  }

  it.each([itemsKind, locationsKind])('$kind: any chunking reads exactly as the whole file, failures and their line and offset included', async (kind) => {
    await fc.assert(
      fc.asyncProperty(bytes, fc.array(fc.nat(), { maxLength: 12 }), fc.integer({ min: 1, max: 40 }), async (file, cuts, blockBytes) => {
        // Act: small read blocks, so that block borders fall inside characters, records and CRLFs
        const whole = await readCsv(file, { columns: kind.columns, maxRows: 50 }, blockBytes);
        const chunked = await readCsv(chunksOf(file, cuts), { columns: kind.columns, maxRows: 50 }, blockBytes);
        const fileProblem = (result: typeof whole) => (!result.ok && ['not-utf8', 'not-csv'].includes(result.failure.code) ? result.failure : undefined);

        // Assess: chunking never matters; block size only decides which of several problems is met first
        expect(chunked).toEqual(whole);
        const inOneBlock = await readCsv(file, { columns: kind.columns, maxRows: 50 }, file.length + 1);
        expect(whole.ok).toBe(inOneBlock.ok);
        if (!fileProblem(whole) && !fileProblem(inOneBlock)) expect(whole).toEqual(inOneBlock);
      }),
      { numRuns: 1500 },
    );
  });

  it('reads a multi-byte character cut between every pair of its bytes, and a CRLF cut in two', async () => {
    // Prepare: 😀 is 4 bytes; line 3 holds an invalid byte after a CR LF cut in the middle
    const file = Buffer.concat([Buffer.from('sku,name\r\nA,😀\r\n', 'utf8'), Buffer.from([0x42, 0x2c, 0xff, 0x0a])]);
    const emoji = file.indexOf(Buffer.from('😀', 'utf8'));
    const crlf = file.indexOf('\r\nB');

    // Act
    const result = await readCsv(chunksOf(file, [emoji + 1, emoji + 2, emoji + 3, crlf + 1]), { columns: itemsKind.columns, maxRows: 5 }, 3);

    // Assess
    expect(result).toEqual({ ok: false, failure: expect.objectContaining({ code: 'not-utf8' }) });
    if (!result.ok) expect(result.failure.message).toContain(`line 3, byte offset ${file.indexOf(0xff)}`);
  });
});
