/**
 * The text rule of identifiers: skus, codes, references, lots, units and barcodes, in import cells
 * and in API bodies. They are matched exactly, never trimmed or normalized, so anything invisible
 * would make a second record that looks like the first: no leading or trailing whitespace, no
 * control characters (Cc), and no format characters (Cf: zero-width spaces and joiners, the word
 * joiner, a BOM inside the text, the soft hyphen, bidi marks, embeddings, overrides and isolates
 * such as U+200B, U+202E, U+2066–U+2069).
 */

/** The whole rule as one pattern; the API's schemas publish it (lib/boms/contracts/boms.ts). */
export const IDENTIFIER_PATTERN = /^[^\s\p{Cc}\p{Cf}](?:[^\p{Cc}\p{Cf}]*[^\s\p{Cc}\p{Cf}])?$/u;

export const IDENTIFIER_RULE = 'No control or invisible format characters (zero-width, bidi controls), no leading or trailing spaces.';

const CONTROL_CHARACTER = /\p{Cc}/u;
const FORMAT_CHARACTER = /\p{Cf}/u;

/** `U+200B`: how a message names a character the reader cannot see. */
function codePointOf(character: string): string {
  return `U+${(character.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, '0')}`;
}

/** Why `text` is not an identifier (a sentence ending in a period, after "<name> "), or undefined when it is one. */
export function identifierProblem(text: string): string | undefined {
  if (text.trim() !== text) return 'must not start or end with whitespace.';
  if (CONTROL_CHARACTER.test(text)) return 'must not contain control characters (tabs, line breaks).';
  const format = FORMAT_CHARACTER.exec(text);
  if (format) return `must not contain invisible format characters (zero-width or bidi control); it contains ${codePointOf(format[0])}.`;
  return undefined;
}
