/**
 * CSV formula-injection safety: nothing the API writes as CSV starts with an
 * unescaped `=`, `+`, `-` or `@` (nor a tab or carriage return, which some spreadsheets skip
 * before evaluating). Such text cells get a leading `'`, which spreadsheets show as text.
 *
 * Numbers passed as `number` are written as numbers (`-5` is a value, not a formula); pass
 * numeric columns as numbers, not as strings, or they are escaped like any text.
 */

const FORMULA_TRIGGERS = new Set(['=', '+', '-', '@', '\t', '\r']);

/**
 * Whether `text`, after any run of leading `'`, begins with a trigger. A text that already starts
 * with `'` before a trigger (`'=x`) is escaped too, or the import would take its own `'` for the
 * escape and drop it: the escape is one more `'` in front of such a run, and only that one is
 * dropped, so every text reads back as it was written (docs/exports.md "File formats").
 */
function startsLikeFormula(text: string): boolean {
  let index = 0;
  while (text.charAt(index) === "'") index += 1;
  return FORMULA_TRIGGERS.has(text.charAt(index));
}

/** `text` with a leading `'` when a spreadsheet could read it as a formula, or when it looks like an escaped one. */
export function neutralizeFormula(text: string): string {
  return startsLikeFormula(text) ? `'${text}` : text;
}

/**
 * The import side of the escape (docs/imports.md "Files"): a leading `'` before one of the
 * characters `neutralizeFormula` escapes (or before more `'` and then one of them) is that escape
 * and is dropped, so a file the API wrote imports back as the values it holds. A `'` before
 * anything else is kept.
 */
export function unescapeFormula(text: string): string {
  return text.charAt(0) === "'" && startsLikeFormula(text) ? text.slice(1) : text;
}

/**
 * One complete CSV field: formula-neutralized text, quoted (RFC 4180, `"` doubled) when it
 * contains a comma, quote or line break. `null`/`undefined` → empty field.
 */
export function escapeCsvCell(value: string | number | boolean | null | undefined): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new RangeError(`escapeCsvCell: ${value} is not a finite number`);
    return String(value);
  }
  if (typeof value === 'boolean') return String(value);
  const text = neutralizeFormula(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}
