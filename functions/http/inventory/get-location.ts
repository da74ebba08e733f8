import { chainDependencies } from '../../../lib/composition.ts';
import { getLocationContract } from '../../../lib/contracts/inventory/operations.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getLocationRoute } from '../../../lib/routes/inventory.ts';
import { inventoryReads } from './reads.ts';

const reads = inventoryReads();

export const handler = createOperationHandler(bindOperation(getLocationRoute, getLocationContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.location(principal.organizationId, path.id),
}));
