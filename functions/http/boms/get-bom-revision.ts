import { chainDependencies } from '../../../lib/composition.ts';
import { getBomRevisionContract } from '../../../lib/contracts/boms/get-bom-revision.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { publicRevision } from '../../../lib/domain/boms/views.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getBomRevisionRoute } from '../../../lib/routes/boms.ts';
import { bomReads } from './reads.ts';

const reads = bomReads();

export const handler = createOperationHandler(bindOperation(getBomRevisionRoute, getBomRevisionContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: publicRevision(await reads.revision(principal.organizationId, path.id, path.revisionId)),
}));
