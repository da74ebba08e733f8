import { chainDependencies } from '../../../lib/app/composition.ts';
import { getLocationContract } from '../../../lib/inventory/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { versionETag } from '../../../lib/inventory/domain/reads.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getLocationRoute } from '../../../lib/inventory/routes.ts';
import { inventoryReads } from './reads.ts';

const reads = inventoryReads();

export const handler = createOperationHandler(bindOperation(getLocationRoute, getLocationContract), chainDependencies, async ({ path, principal }) => {
  const found = await reads.location(principal.organizationId, path.id);
  return { status: 200, json: found, headers: { ETag: versionETag(found.version) } };
});
