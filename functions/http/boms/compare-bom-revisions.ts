import { chainDependencies } from '../../../lib/composition.ts';
import { compareBomRevisionsContract } from '../../../lib/contracts/boms/compare-bom-revisions.ts';
import { publicComparison } from '../../../lib/domain/boms/views.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { bomReads } from './reads.ts';

const reads = bomReads({ lists: false });

export const handler = createHttpHandler(compareBomRevisionsContract, chainDependencies, async ({ path, query, principal }) => ({
  status: 200,
  json: publicComparison(await reads.compare(principal.organizationId, path.id, query.fromRevisionId, query.toRevisionId)),
}));
