import { chainDependencies } from '../../../lib/app/composition.ts';
import { getItemContract } from '../../../lib/inventory/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { versionETag } from '../../../lib/inventory/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getItemRoute } from '../../../lib/inventory/routes.ts';
import { itemReads } from './reads.ts';

const reads = itemReads();

export const handler = createOperationHandler(bindOperation(getItemRoute, getItemContract), chainDependencies, async ({ path, principal }) => {
  const found = await reads.item(principal.organizationId, path.id);
  return { status: 200, json: found, headers: { ETag: versionETag(found.version) } };
});
