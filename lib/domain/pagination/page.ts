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
