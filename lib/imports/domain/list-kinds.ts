import type { CursorCodec } from '../../platform/pagination/cursor.ts';
import { staticListPage } from '../../platform/pagination/static-page.ts';
import KIND_SUMMARIES from './kind-summaries.generated.json' with { type: 'json' };
import type { Page } from './read-imports.ts';
import type { ImportKindSummary } from './types.ts';

/**
 * What `GET /v1/imports/kinds` lists, generated from the registry of kinds.ts
 * (`npm run import-kinds`, held by test/unit/imports/kind-summaries.test.ts): the registry itself
 * would bring every kind's row parser into the function (docs/performance.md "Bundles").
 */
const SUMMARIES = KIND_SUMMARIES as readonly ImportKindSummary[];

/** The registered kinds, paged like every list (the registry is static, so by offset). */
export async function listImportKinds(
  organizationId: string,
  query: { limit: number; cursor?: string },
  cursors: CursorCodec,
): Promise<Page<ImportKindSummary>> {
  return staticListPage(SUMMARIES, { organizationId, endpoint: 'GET /v1/imports/kinds', ...query }, cursors);
}
