import { chainDependencies } from '../../../lib/composition.ts';
import { getBomContract } from '../../../lib/contracts/boms/get-bom.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { bomETag } from '../../../lib/domain/boms/commands.ts';
import { publicBom } from '../../../lib/domain/boms/views.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getBomRoute } from '../../../lib/routes/boms.ts';
import { bomReads } from './reads.ts';

const reads = bomReads();

export const handler = createOperationHandler(bindOperation(getBomRoute, getBomContract), chainDependencies, async ({ path, principal }) => {
  const { bom, version } = await reads.get(principal.organizationId, path.id);
  return { status: 200, json: publicBom(bom), headers: { ETag: bomETag(bom, version) } };
});
