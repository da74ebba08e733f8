import { chainDependencies } from '../../../lib/composition.ts';
import { getMovementContract } from '../../../lib/contracts/inventory/operations.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getMovementRoute } from '../../../lib/routes/inventory.ts';
import { inventoryReads } from './reads.ts';

const reads = inventoryReads();

export const handler = createOperationHandler(bindOperation(getMovementRoute, getMovementContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.movement(principal.organizationId, path.id),
}));
