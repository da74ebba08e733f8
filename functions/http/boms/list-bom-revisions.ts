import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { listBomRevisionsContract } from '../../../lib/contracts/boms/list-bom-revisions.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicRevisionListing } from '../../../lib/domain/boms/views.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { listBomRevisionsRoute } from '../../../lib/routes/boms.ts';
import { bomReads } from './reads.ts';

const reads = bomReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(listBomRevisionsRoute, listBomRevisionsContract), chainDependencies, async ({ path, query, principal }) => {
  const page = await reads.revisions(principal.organizationId, path.id, query);
  return { status: 200, json: { data: page.data.map(publicRevisionListing), page: page.page } };
});
