import { invalidCursorError, type CursorBinding, type CursorCodec } from './cursor.ts';

/** One page read from storage: the items, and the position after the last one examined (the next page's start). */
export interface PageOf<T> {
  items: T[];
  last?: string;
  more: boolean;
}

/** One page as a list endpoint answers it (docs/api-guide.md "Lists and cursors"). */
export interface ListPage<T> {
  data: T[];
  page: { nextCursor: string | null };
}

/**
 * A list endpoint's page read from `cursor` on: the cursor is checked against `binding` (tenant,
 * endpoint, filters), the store reads from its position, and the next cursor is signed for the
 * same binding.
 */
export async function cursorPage<T>(
  cursors: CursorCodec,
  binding: CursorBinding,
  cursor: string | undefined,
  read: (after: string | undefined) => Promise<PageOf<T>>,
): Promise<ListPage<T>> {
  let after: string | undefined;
  if (cursor !== undefined) {
    const position = await cursors.decode(cursor, binding);
    if (typeof position !== 'string') throw invalidCursorError();
    after = position;
  }
  const page = await read(after);
  return { data: page.items, page: { nextCursor: page.more && page.last ? cursors.encode(page.last, binding) : null } };
}
