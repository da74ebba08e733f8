import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readCsv } from '../../../lib/domain/imports/csv-reader.ts';
import { itemsKind } from '../../../lib/domain/imports/items-kind.ts';
import { locationsKind } from '../../../lib/domain/imports/locations-kind.ts';

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
  it.each([itemsKind, locationsKind])('$kind: never throws; always ok or a failure', (kind) => {
    fc.assert(
      fc.property(bytes, fc.integer({ min: 0, max: 5 }), (file, maxRows) => {
        // Act
        const result = readCsv(file, { columns: kind.columns, maxRows });

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

  it('returns every non-blank cell exactly as written, with its row number', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(cell, cell), { maxLength: 20 }), fc.constantFrom('\n', '\r\n', '\r'), fc.boolean(), (records, eol, bom) => {
        // Prepare
        const text = `${bom ? '\uFEFF' : ''}sku,name${eol}${records.map(([a, b]) => `${quote(a)},${quote(b)}`).join(eol)}`;

        // Act
        const result = readCsv(Buffer.from(text, 'utf8'), { columns: itemsKind.columns, maxRows: 100 });

        // Assess
        const expected = records
          .map(([sku, name], index) => ({ rowNumber: index + 1, raw: { sku, name } }))
          .filter(({ raw }) => raw.sku.trim() !== '' || raw.name.trim() !== '');
        expect(result).toEqual({ ok: true, header: ['sku', 'name'], rows: expected, rowErrors: [], warnings: [] });
      }),
      { numRuns: 1000 },
    );
  });
});
