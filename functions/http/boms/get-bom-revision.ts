import { chainDependencies } from '../../../lib/composition.ts';
import { getBomRevisionContract } from '../../../lib/contracts/boms/get-bom-revision.ts';
import { publicRevision } from '../../../lib/domain/boms/views.ts';
import { createHttpHandler } from '../../../lib/http/chain.ts';
import { bomReads } from './reads.ts';

const reads = bomReads({ lists: false });

export const handler = createHttpHandler(getBomRevisionContract, chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: publicRevision(await reads.revision(principal.organizationId, path.id, path.revisionId)),
}));
