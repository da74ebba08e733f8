import { chainDependencies } from '../../../lib/composition.ts';
import { compareBomRevisionsContract } from '../../../lib/contracts/boms/compare-bom-revisions.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicComparison } from '../../../lib/domain/boms/views.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { compareBomRevisionsRoute } from '../../../lib/routes/boms.ts';
import { bomReads } from './reads.ts';

const reads = bomReads();

export const handler = createOperationHandler(bindOperation(compareBomRevisionsRoute, compareBomRevisionsContract), chainDependencies, async ({ path, query, principal }) => ({
  status: 200,
  json: publicComparison(await reads.compare(principal.organizationId, path.id, query.fromRevisionId, query.toRevisionId)),
}));
