/** One page of any list endpoint (docs/api-guide.md "Lists and cursors"). */
export interface ListPage<Item> {
  data: Item[];
  page: { nextCursor?: string | null };
}

/**
 * Every item of a list, page after page: `fetchPage` gets the cursor of the page to read
 * (undefined for the first) and the walk ends at the page whose `nextCursor` is null.
 */
export async function* paginate<Item>(fetchPage: (cursor: string | undefined) => Promise<ListPage<Item>>): AsyncGenerator<Item, void, undefined> {
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    yield* page.data;
    cursor = page.page.nextCursor ?? undefined;
  } while (cursor !== undefined);
}
