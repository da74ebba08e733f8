/**
 * File attachment names (docs/attachments.md "Files"): the name a client sends is shown back and
 * sent again in a response header, so it is cut down to something printable that cannot name a
 * path, and the header is built so that no name can break out of it or make the browser render
 * the file inline.
 */

export const STORED_FILE_NAME_MAX = 255;

/**
 * The same characters `cleanFileName` (lib/imports/domain/submit-job.ts) removes: C0 and C1
 * controls, DEL, and the bidirectional marks, embeddings, overrides and isolates that make a name
 * display as something else (`invoice` U+202E `fdp.exe` shows as "invoiceexe.pdf"). That function
 * does not fit here: it clips before the path is taken apart and turns an empty result into
 * "upload.csv", which would hide the caller's fallback. A unit test keeps the two sets equal.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE_IN_FILE_NAMES = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/gu;

/** Half of a surrogate pair on its own has no UTF-8 form, so the name could not be put in the header. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** Both separators: a name from Windows arrives as `C:\Users\me\report.pdf` as often as a name with `/`. */
const PATH_SEPARATOR = /[/\\]/u;

/**
 * Spaces and dots at the ends: Windows drops trailing ones when saving, a leading dot hides the
 * file elsewhere, and a name of only dots (`..`) is a path step, not a name.
 */
const EDGE_SPACES_AND_DOTS = /^[\s.]+|[\s.]+$/gu;

/** The name kept on the record and shown back: controls, bidi overrides and path parts removed, clipped; never empty. */
export function safeFileName(clientName: string | undefined, fallback: string): string {
  if (clientName === undefined) return fallback;
  const printable = clientName.replace(LONE_SURROGATE, '').replace(UNSAFE_IN_FILE_NAMES, '');
  // The last segment that is a name: `report.pdf/` and `a/..` still keep a name rather than none.
  const segments = printable.split(PATH_SEPARATOR).map((segment) => segment.replace(EDGE_SPACES_AND_DOTS, ''));
  const lastName = segments.findLast((segment) => segment !== '') ?? '';
  // Clipping by code point keeps surrogate pairs whole; it can leave a space or dot at the end.
  const clipped = [...lastName].slice(0, STORED_FILE_NAME_MAX).join('').replace(EDGE_SPACES_AND_DOTS, '');
  return clipped === '' ? fallback : clipped;
}

/** Printable ASCII except the characters that end or escape a quoted string, or that some browsers decode (`%`) or split on (`;`). */
const ASCII_FALLBACK_CHARACTER = /^[\x20-\x7e]$/u;
const UNSAFE_IN_ASCII_FALLBACK = new Set(['"', '\\', '%', ';']);

/** The attr-chars of the `filename*` grammar: the only bytes that may stand unencoded there. */
const ATTR_CHAR = /^[A-Za-z0-9!#$&+\-.^_`|~]$/u;

/** A Content-Disposition that forces a download: `attachment; filename="<ascii fallback>"; filename*=UTF-8''<RFC 5987 percent-encoding>`. */
export function attachmentDisposition(fileName: string): string {
  // Older clients only read `filename`, so it comes first; clients that understand `filename*` prefer it.
  const ascii = [...fileName]
    .map((character) => (ASCII_FALLBACK_CHARACTER.test(character) && !UNSAFE_IN_ASCII_FALLBACK.has(character) ? character : '_'))
    .join('');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${percentEncoded(fileName)}`;
}

/**
 * Every byte that is not an attr-char, percent-encoded; `encodeURIComponent` does not fit: it
 * leaves `'()*` alone (not attr-chars) and throws on a lone surrogate, where TextEncoder writes U+FFFD.
 */
function percentEncoded(text: string): string {
  let encoded = '';
  for (const byte of new TextEncoder().encode(text)) {
    const character = String.fromCharCode(byte);
    encoded += ATTR_CHAR.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return encoded;
}
