import { invalidCursorError, type CursorCodec } from '../pagination/cursor.ts';
import { IMPORT_KINDS, kindSummary } from './kinds.ts';
import type { Page } from './read-imports.ts';
import type { ImportKindSummary } from './types.ts';

/** The registered kinds, paged like every list (the registry is static, so by offset). */
export async function listImportKinds(organizationId: string, query: { limit: number; cursor?: string }, cursors: CursorCodec): Promise<Page<ImportKindSummary>> {
  const binding = { organizationId, endpoint: 'GET /v1/imports/kinds', filters: {} };
  const offset = query.cursor === undefined ? 0 : await cursors.decode(query.cursor, binding);
  if (typeof offset !== 'number' || !Number.isInteger(offset) || offset < 0) throw invalidCursorError();
  const slice = IMPORT_KINDS.slice(offset, offset + query.limit);
  const next = offset + slice.length;
  return { data: slice.map(kindSummary), page: { nextCursor: next < IMPORT_KINDS.length ? cursors.encode(next, binding) : null } };
}
