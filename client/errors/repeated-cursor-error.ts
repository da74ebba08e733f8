/**
 * The API handed back a cursor, or a lot trace's continuation, that this walk had already
 * followed: following it again would read the same pages for ever, so the walk stops here
 * (docs/client.md#repeated-cursors). The API is at fault; report `walk` and `cursor`.
 */
export class RepeatedCursorError extends Error {
  override name = 'RepeatedCursorError';
  /** What was being walked, e.g. `GET /v1/stock-records`. */
  readonly walk: string;
  /** The repeated cursor; null for a continuation without one (the lot traced from its start). */
  readonly cursor: string | null;

  constructor(walk: string, cursor: string | null) {
    super(
      `${walk}: the API handed back a ${cursor === null ? 'continuation without a cursor' : `cursor (${shorten(cursor)})`} this walk had already followed; stopped rather than read the same pages for ever. Please report it: it is a defect of the API.`,
    );
    this.walk = walk;
    this.cursor = cursor;
  }
}

const shorten = (cursor: string) => (cursor.length > 24 ? `${cursor.slice(0, 24)}…` : cursor);
