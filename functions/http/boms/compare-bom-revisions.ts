import { chainDependencies } from '../../../lib/app/composition.ts';
import { compareBomRevisionsContract } from '../../../lib/boms/contracts/compare-bom-revisions.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicComparison } from '../../../lib/boms/domain/views.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { compareBomRevisionsRoute } from '../../../lib/boms/routes.ts';
import { bomReads } from './reads.ts';

const reads = bomReads();

export const handler = createOperationHandler(
  bindOperation(compareBomRevisionsRoute, compareBomRevisionsContract),
  chainDependencies,
  async ({ path, query, principal }) => ({
    status: 200,
    json: publicComparison(await reads.compare(principal.organizationId, path.id, query.fromRevisionId, query.toRevisionId)),
  }),
);
