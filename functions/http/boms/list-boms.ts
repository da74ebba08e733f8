import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { listBomsContract } from '../../../lib/contracts/boms/list-boms.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicBomSummary } from '../../../lib/domain/boms/views.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listBomsRoute } from '../../../lib/routes/boms.ts';
import { bomReads } from './reads.ts';

const reads = bomReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listBomsRoute, listBomsContract), chainDependencies, async ({ query, principal }) => {
  const { q, status, targetItemId, includeArchived, limit, cursor } = query;
  const filter = { includeArchived: includeArchived ?? false, ...(q === undefined ? {} : { q }), ...(status === undefined ? {} : { status }), ...(targetItemId === undefined ? {} : { targetItemId }) };
  const page = await reads.list(principal.organizationId, filter, { limit, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: { data: page.data.map(publicBomSummary), page: page.page } };
});
