import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { listBomsContract } from '../../../lib/boms/contracts/list-boms.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicBomSummary } from '../../../lib/boms/domain/views.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listBomsRoute } from '../../../lib/boms/routes.ts';
import { bomReads } from './reads.ts';

const reads = bomReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listBomsRoute, listBomsContract), chainDependencies, async ({ query, principal }) => {
  const { q, status, targetItemId, includeArchived, limit, cursor } = query;
  const filter = {
    includeArchived: includeArchived ?? false,
    ...(q === undefined ? {} : { q }),
    ...(status === undefined ? {} : { status }),
    ...(targetItemId === undefined ? {} : { targetItemId }),
  };
  const page = await reads.list(principal.organizationId, filter, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicBomSummary), page: page.page } };
});
