import { chainDependencies } from '../../../lib/composition.ts';
import { getItemContract } from '../../../lib/contracts/inventory/operations.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getItemRoute } from '../../../lib/routes/inventory.ts';
import { itemReads } from './reads.ts';

const reads = itemReads();

export const handler = createOperationHandler(bindOperation(getItemRoute, getItemContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.item(principal.organizationId, path.id),
}));
