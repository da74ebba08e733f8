import { chainDependencies } from '../../../lib/app/composition.ts';
import { getMovementContract } from '../../../lib/inventory/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getMovementRoute } from '../../../lib/inventory/routes.ts';
import { inventoryReads } from './reads.ts';

const reads = inventoryReads();

export const handler = createOperationHandler(bindOperation(getMovementRoute, getMovementContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.movement(principal.organizationId, path.id),
}));
