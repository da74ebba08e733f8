import { chainDependencies } from '../../../lib/app/composition.ts';
import { getBomContract } from '../../../lib/boms/contracts/get-bom.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { bomETag } from '../../../lib/boms/domain/commands.ts';
import { publicBom } from '../../../lib/boms/domain/views.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getBomRoute } from '../../../lib/boms/routes.ts';
import { bomReads } from './reads.ts';

const reads = bomReads();

export const handler = createOperationHandler(bindOperation(getBomRoute, getBomContract), chainDependencies, async ({ path, principal }) => {
  const { bom, version } = await reads.get(principal.organizationId, path.id);
  return { status: 200, json: publicBom(bom), headers: { ETag: bomETag(bom, version) } };
});
