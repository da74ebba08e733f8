import { chainDependencies } from '../../../lib/composition.ts';
import { listBomRevisionsContract } from '../../../lib/contracts/boms/list-bom-revisions.ts';
import { publicRevisionListing } from '../../../lib/domain/boms/views.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { bomReads } from './reads.ts';

const reads = bomReads({ lists: true });

export const handler = createHttpHandler(listBomRevisionsContract, chainDependencies, async ({ path, query, principal }) => {
  const page = await reads.revisions(principal.organizationId, path.id, query);
  return { status: 200, json: { data: page.data.map(publicRevisionListing), page: page.page } };
});
