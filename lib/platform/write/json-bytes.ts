/**
 * Sizes against the store's byte limits (e.g. DynamoDB's 4 MB per transaction) are counted in
 * UTF-8 bytes, as the store counts them: `JSON.stringify(x).length` counts UTF-16 units, which
 * undercounts any text outside ASCII up to threefold.
 */

const encoder = new TextEncoder();

/** The UTF-8 size of a text. */
export function utf8Bytes(text: string): number {
  return encoder.encode(text).byteLength;
}

/** The UTF-8 size of a value as JSON (an upper bound of its stored size). */
export function jsonBytes(value: unknown): number {
  return utf8Bytes(JSON.stringify(value));
}
