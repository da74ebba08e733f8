import { chainDependencies } from '../../../lib/composition.ts';
import { listBomsContract } from '../../../lib/contracts/boms/list-boms.ts';
import { publicBomSummary } from '../../../lib/domain/boms/views.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { bomReads } from './reads.ts';

const reads = bomReads({ lists: true });

export const handler = createHttpHandler(listBomsContract, chainDependencies, async ({ query, principal }) => {
  const { q, status, targetItemId, includeArchived, limit, cursor } = query;
  const filter = { includeArchived: includeArchived ?? false, ...(q === undefined ? {} : { q }), ...(status === undefined ? {} : { status }), ...(targetItemId === undefined ? {} : { targetItemId }) };
  const page = await reads.list(principal.organizationId, filter, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicBomSummary), page: page.page } };
});
