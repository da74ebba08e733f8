import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { listBomBuildsContract } from '../../../lib/boms/contracts/list-bom-builds.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicBuild } from '../../../lib/boms/domain/views.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listBomBuildsRoute } from '../../../lib/boms/routes.ts';
import { bomReads } from './reads.ts';

const reads = bomReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(
  bindOperation(listBomBuildsRoute, listBomBuildsContract),
  chainDependencies,
  async ({ path, query, principal }) => {
    const { sourceStockRecordId, limit, cursor } = query;
    const page = await reads.builds(principal.organizationId, path.id, sourceStockRecordId, { limit, ...(cursor === undefined ? {} : { cursor }) });
    return { status: 200, json: { data: page.data.map(publicBuild), page: page.page } };
  },
);
