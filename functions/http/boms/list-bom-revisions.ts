import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { listBomRevisionsContract } from '../../../lib/boms/contracts/list-bom-revisions.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicRevisionListing } from '../../../lib/boms/domain/views.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { listBomRevisionsRoute } from '../../../lib/boms/routes.ts';
import { bomReads } from './reads.ts';

const reads = bomReads(new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(
  bindOperation(listBomRevisionsRoute, listBomRevisionsContract),
  chainDependencies,
  async ({ path, query, principal }) => {
    const page = await reads.revisions(principal.organizationId, path.id, query);
    return { status: 200, json: { data: page.data.map(publicRevisionListing), page: page.page } };
  },
);
