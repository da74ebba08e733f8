import { RepeatedCursorError } from '../errors/repeated-cursor-error.ts';

/** One page of any list endpoint (docs/api-guide.md "Lists and cursors"). */
export interface ListPage<Item> {
  data: Item[];
  page: { nextCursor?: string | null };
}

/**
 * Every item of a list, page after page: `fetchPage` gets the cursor of the page to read
 * (undefined for the first) and the walk ends at the page whose `nextCursor` is null. A
 * `nextCursor` already followed throws a RepeatedCursorError (`walk` names the list in it).
 */
export async function* paginate<Item>(
  fetchPage: (cursor: string | undefined) => Promise<ListPage<Item>>,
  walk = 'A list',
): AsyncGenerator<Item, void, undefined> {
  const followed = new Set<string>();
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.page.nextCursor ?? undefined;
    if (cursor !== undefined && followed.has(cursor)) throw new RepeatedCursorError(walk, cursor);
    if (cursor !== undefined) followed.add(cursor);
  } while (cursor !== undefined);
}
