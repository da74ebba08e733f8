import { chainDependencies } from '../../../lib/composition.ts';
import { listBomBuildsContract } from '../../../lib/contracts/boms/list-bom-builds.ts';
import { publicBuild } from '../../../lib/domain/boms/views.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { bomReads } from './reads.ts';

const reads = bomReads({ lists: true });

export const handler = createHttpHandler(listBomBuildsContract, chainDependencies, async ({ path, query, principal }) => {
  const { sourceStockRecordId, limit, cursor } = query;
  const page = await reads.builds(principal.organizationId, path.id, sourceStockRecordId, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicBuild), page: page.page } };
});
