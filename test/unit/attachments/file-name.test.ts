import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { STORED_FILE_NAME_MAX, attachmentDisposition, safeFileName } from '../../../lib/attachments/domain/file-name.ts';
import { cleanFileName } from '../../../lib/imports/domain/submit-job.ts';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/u;

/** String.prototype.isWellFormed is outside the ES2023 lib; in a `u` pattern a surrogate pair is one code point above U+FFFF. */
function hasLoneSurrogate(text: string): boolean {
  return /[\ud800-\udfff]/u.test(text);
}

/** The parts of a header built by attachmentDisposition, or a failure naming the header. */
function partsOf(header: string): { ascii: string; encoded: string } {
  const match = /^attachment; filename="([^"]*)"; filename\*=UTF-8''([^\s";]*)$/u.exec(header);
  if (!match) throw new Error(`not a disposition this module builds: ${JSON.stringify(header)}`);
  return { ascii: match[1] ?? '', encoded: match[2] ?? '' };
}

describe('safeFileName', () => {
  it.each([
    { label: 'a path climbing out', given: '../../etc/passwd', expected: 'passwd' },
    { label: 'a header injection', given: 'a\r\nSet-Cookie: x', expected: 'aSet-Cookie: x' },
    { label: 'a quote', given: 'quote".pdf', expected: 'quote".pdf' },
    { label: 'a NUL', given: 'nul\u0000.pdf', expected: 'nul.pdf' },
    { label: 'a right-to-left override', given: 'invoice\u202Efdp.exe', expected: 'invoicefdp.exe' },
    { label: 'isolates, marks and the Arabic letter mark', given: '\u2066a\u2069\u200E\u200F\u061C\u202Ab\u202C.pdf', expected: 'ab.pdf' },
    { label: 'C1 controls and DEL', given: 'a\u0080\u0085\u009f\u007fb.pdf', expected: 'ab.pdf' },
    { label: 'a Windows path', given: 'C:\\Users\\me\\Desktop\\report.pdf', expected: 'report.pdf' },
    { label: 'mixed separators', given: 'a/b\\c/d.txt', expected: 'd.txt' },
    { label: 'a trailing separator', given: 'docs/report.pdf/', expected: 'report.pdf' },
    { label: 'a trailing parent step', given: 'docs/report.pdf/..', expected: 'report.pdf' },
    { label: 'spaces and dots at both ends', given: ' . report.pdf .. ', expected: 'report.pdf' },
    { label: 'a hidden-file dot', given: '.htaccess', expected: 'htaccess' },
    { label: 'controls hiding edge spaces', given: '\u0000 .\u202E report.pdf\u0007 ', expected: 'report.pdf' },
    { label: 'an emoji name', given: '📦 Lieferschein Süd.pdf', expected: '📦 Lieferschein Süd.pdf' },
    { label: 'a lone surrogate', given: 'a\ud800b.pdf', expected: 'ab.pdf' },
    { label: 'inner dots and spaces', given: 'v1.2 final..draft.pdf', expected: 'v1.2 final..draft.pdf' },
  ])('cleans $label', ({ given, expected }) => {
    // Act
    const name = safeFileName(given, 'file');

    // Assess
    expect(name).toBe(expected);
  });

  it.each<{ label: string; given: string | undefined }>([
    { label: 'no name', given: undefined },
    { label: 'an empty name', given: '' },
    { label: 'only spaces', given: '   ' },
    { label: 'a parent step', given: '..' },
    { label: 'only path steps', given: '../../' },
    { label: 'only separators', given: '/\\/' },
    { label: 'only controls and bidi marks', given: '\u0000\r\n\u202E\u2066' },
  ])('falls back for $label', ({ given }) => {
    // Act
    const name = safeFileName(given, 'attachment.bin');

    // Assess
    expect(name).toBe('attachment.bin');
  });

  it('removes exactly the characters cleanFileName removes', () => {
    // Prepare: every BMP character except separators, whitespace, dots and surrogate halves, which both treat differently on purpose
    const characters = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).filter((character) => !/[/\\.\s\ud800-\udfff]/u.test(character));

    // Act
    const differing = characters.filter((character) => {
      const removedHere = safeFileName(`a${character}b`, 'file') === 'ab';
      const removedThere = cleanFileName(`a${character}b`) === 'ab';
      return removedHere !== removedThere;
    });

    // Assess
    expect(differing).toEqual([]);
  });

  it('clips a 300-character name to STORED_FILE_NAME_MAX characters', () => {
    // Prepare
    const given = `${'a'.repeat(296)}.pdf`;

    // Act
    const name = safeFileName(given, 'file');

    // Assess
    expect(STORED_FILE_NAME_MAX).toBe(255);
    expect(given).toHaveLength(300);
    expect(name).toBe('a'.repeat(255));
  });

  it('clips by code point and never splits a surrogate pair', () => {
    // Act
    const name = safeFileName('📦'.repeat(300), 'file');

    // Assess
    expect([...name]).toHaveLength(255);
    expect(name).toBe('📦'.repeat(255));
    expect(hasLoneSurrogate(name)).toBe(false);
  });

  it('drops the space or dot a clip leaves at the end', () => {
    // Act
    const name = safeFileName(`${'a'.repeat(253)} .pdf`, 'file');

    // Assess
    expect(name).toBe('a'.repeat(253));
  });
});

describe('attachmentDisposition', () => {
  it.each([
    { label: 'a plain name', given: 'report.pdf', expected: `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf` },
    { label: 'a quote', given: 'quote".pdf', expected: `attachment; filename="quote_.pdf"; filename*=UTF-8''quote%22.pdf` },
    { label: 'a cleaned header injection', given: 'aSet-Cookie: x', expected: `attachment; filename="aSet-Cookie: x"; filename*=UTF-8''aSet-Cookie%3A%20x` },
    {
      label: 'an emoji and umlaut name',
      given: '📦 Lieferschein Süd.pdf',
      expected: `attachment; filename="_ Lieferschein S_d.pdf"; filename*=UTF-8''%F0%9F%93%A6%20Lieferschein%20S%C3%BCd.pdf`,
    },
    {
      label: 'backslash, percent and semicolon',
      given: 'a\\b%20c;d.pdf',
      expected: `attachment; filename="a_b_20c_d.pdf"; filename*=UTF-8''a%5Cb%2520c%3Bd.pdf`,
    },
    { label: 'every attr-char unencoded', given: '!#$&+-.^_`|~Az09', expected: `attachment; filename="!#$&+-.^_\`|~Az09"; filename*=UTF-8''!#$&+-.^_\`|~Az09` },
    {
      label: 'the characters encodeURIComponent would leave alone',
      given: "it's (1)*.pdf",
      expected: `attachment; filename="it's (1)*.pdf"; filename*=UTF-8''it%27s%20%281%29%2A.pdf`,
    },
    { label: 'an empty name', given: '', expected: `attachment; filename=""; filename*=UTF-8''` },
  ])('builds the header for $label', ({ given, expected }) => {
    // Act
    const header = attachmentDisposition(given);

    // Assess
    expect(header).toBe(expected);
  });

  it.each([
    { label: 'raw CR LF', given: 'a\r\nSet-Cookie: x' },
    { label: 'a NUL', given: 'nul\u0000.pdf' },
    { label: 'a right-to-left override', given: 'invoice\u202Efdp.exe' },
    { label: 'a lone surrogate', given: 'a\udc00b' },
  ])('stays one safe header line even for an uncleaned name with $label', ({ given }) => {
    // Act
    const header = attachmentDisposition(given);

    // Assess
    expect(header).not.toMatch(CONTROL);
    expect(header).toMatch(/^[\x20-\x7e]*$/u);
    expect(() => partsOf(header)).not.toThrow();
  });

  it('round-trips the required names through safeFileName and the header', () => {
    // Prepare
    const names = ['../../etc/passwd', 'a\r\nSet-Cookie: x', 'quote".pdf', 'nul\u0000.pdf', 'invoice\u202Efdp.exe', 'n'.repeat(300), '📦🧾.pdf', ''];

    // Act
    const headers = names.map((name) => attachmentDisposition(safeFileName(name, 'file')));

    // Assess
    expect(headers.map((header) => decodeURIComponent(partsOf(header).encoded))).toEqual([
      'passwd',
      'aSet-Cookie: x',
      'quote".pdf',
      'nul.pdf',
      'invoicefdp.exe',
      'n'.repeat(255),
      '📦🧾.pdf',
      'file',
    ]);
    expect(headers[5]).toBe(`attachment; filename="${'n'.repeat(255)}"; filename*=UTF-8''${'n'.repeat(255)}`);
    expect(headers[6]).toBe(`attachment; filename="__.pdf"; filename*=UTF-8''%F0%9F%93%A6%F0%9F%A7%BE.pdf`);
  });
});

describe('safeFileName and attachmentDisposition on arbitrary names', () => {
  /** Any code points, any UTF-16 (lone surrogates included), and names built from the characters that matter here. */
  const anyName = fc.oneof(
    fc.string({ unit: 'binary', maxLength: 400 }),
    fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 300 }).map((units) => String.fromCharCode(...units)),
    fc.string({ unit: fc.constantFrom(...'/\\. "%;\r\n\u0000\u0085\u202E\u2066\u200F\u061C\u00a0\u3000aé📦'), maxLength: 300 }),
  );

  it('the header has no control character and its filename* decodes to exactly the stored name', () => {
    fc.assert(
      fc.property(anyName, (given) => {
        // Act
        const stored = safeFileName(given, 'file');
        const header = attachmentDisposition(stored);

        // Assess
        expect(header).not.toMatch(CONTROL);
        const { ascii, encoded } = partsOf(header);
        expect(ascii).not.toContain('"');
        expect(decodeURIComponent(encoded)).toBe(stored);
      }),
      { numRuns: 3000 },
    );
  });

  it('the stored name is never empty, short enough, has no path part and nothing cleanFileName would remove', () => {
    fc.assert(
      fc.property(anyName, (given) => {
        // Act
        const stored = safeFileName(given, 'file');

        // Assess
        expect(stored.length).toBeGreaterThan(0);
        expect([...stored].length).toBeLessThanOrEqual(STORED_FILE_NAME_MAX);
        expect(hasLoneSurrogate(stored)).toBe(false);
        expect(stored).not.toMatch(/[/\\]/u);
        expect(stored).not.toMatch(/^[\s.]|[\s.]$/u);
        expect(cleanFileName(stored)).toBe(stored);
      }),
      { numRuns: 3000 },
    );
  });
});
