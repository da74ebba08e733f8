import { chainDependencies } from '../../../lib/composition.ts';
import { getStockRecordContract } from '../../../lib/contracts/inventory/operations.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getStockRecordRoute } from '../../../lib/routes/inventory.ts';
import { inventoryReads } from './reads.ts';

const reads = inventoryReads();

export const handler = createOperationHandler(bindOperation(getStockRecordRoute, getStockRecordContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.stockRecord(principal.organizationId, path.id),
}));
