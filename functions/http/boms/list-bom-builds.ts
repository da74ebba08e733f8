import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { listBomBuildsContract } from '../../../lib/contracts/boms/list-bom-builds.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicBuild } from '../../../lib/domain/boms/views.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listBomBuildsRoute } from '../../../lib/routes/boms.ts';
import { bomReads } from './reads.ts';

const reads = bomReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listBomBuildsRoute, listBomBuildsContract), chainDependencies, async ({ path, query, principal }) => {
  const { sourceStockRecordId, limit, cursor } = query;
  const page = await reads.builds(principal.organizationId, path.id, sourceStockRecordId, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicBuild), page: page.page } };
});
