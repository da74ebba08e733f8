import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BARCODE_FORMATS } from '../../../lib/labels/domain/formats.ts';
import { ValidationError } from '../../../lib/platform/core/errors.ts';
import { renderBarcode } from '../../../lib/labels/domain/render-barcode.ts';

/** Single UTF-16 code units, lone surrogates included. */
const codeUnit = fc.integer({ min: 0, max: 0xffff }).map((unit) => String.fromCharCode(unit));
/** Characters that steer into the symbologies' own syntax: digits, GS1 brackets, carets, Code 39 set. */
const syntaxCharacter = fc.constantFrom(...'0123456789()^ABCXYZ-.$/+% \u00fc\u20ac');

const payload = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 200 }),
  fc.string({ unit: 'grapheme', minLength: 1, maxLength: 200 }),
  fc.string({ unit: codeUnit, minLength: 1, maxLength: 200 }),
  fc.string({ unit: syntaxCharacter, minLength: 1, maxLength: 200 }),
  fc.stringMatching(/^[0-9]{11,13}$/),
  fc.stringMatching(/^(\((0[01]|1[07]|10|21)\)[0-9A-Z]{1,20}){1,3}$/),
);

describe('renderBarcode on arbitrary payloads', () => {
  it.each(BARCODE_FORMATS)('%s returns an SVG or throws a ValidationError on payload, nothing else', async (format) => {
    await fc.assert(
      fc.asyncProperty(payload, async (text) => {
        // Act
        let outcome: unknown;
        try {
          outcome = await renderBarcode({ format, payload: text });
        } catch (error) {
          outcome = error;
        }

        // Assess
        if (typeof outcome === 'string') {
          expect(outcome.startsWith('<svg ')).toBe(true);
          return;
        }
        expect(outcome).toBeInstanceOf(ValidationError);
        expect((outcome as ValidationError).errors[0]).toMatchObject({ location: 'query', name: 'payload' });
      }),
      { numRuns: 60 },
    );
  });
});
