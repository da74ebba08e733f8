import { invalidCursorError, type CursorCodec } from './cursor.ts';
import type { ListPage } from './page.ts';

/**
 * A page of a list fixed at build time (the import and export kinds): paged by offset like every
 * list (docs/api-guide.md "Lists and cursors"), its cursor bound to the organization and the
 * endpoint, so a tampered or foreign one is a 400 `customer-api.pagination.invalid-cursor`.
 */
export async function staticListPage<T>(
  entries: readonly T[],
  request: { organizationId: string; endpoint: string; limit: number; cursor?: string },
  cursors: CursorCodec,
): Promise<ListPage<T>> {
  const binding = { organizationId: request.organizationId, endpoint: request.endpoint, filters: {} };
  const offset = request.cursor === undefined ? 0 : await cursors.decode(request.cursor, binding);
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) throw invalidCursorError();
  const slice = entries.slice(offset, offset + request.limit);
  const next = offset + slice.length;
  return { data: [...slice], page: { nextCursor: next < entries.length ? cursors.encode(next, binding) : null } };
}
