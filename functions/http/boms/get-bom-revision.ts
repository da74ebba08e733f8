import { chainDependencies } from '../../../lib/app/composition.ts';
import { getBomRevisionContract } from '../../../lib/boms/contracts/get-bom-revision.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { publicRevision } from '../../../lib/boms/domain/views.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getBomRevisionRoute } from '../../../lib/boms/routes.ts';
import { bomReads } from './reads.ts';

const reads = bomReads();

export const handler = createOperationHandler(bindOperation(getBomRevisionRoute, getBomRevisionContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: publicRevision(await reads.revision(principal.organizationId, path.id, path.revisionId)),
}));
