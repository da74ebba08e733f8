import { chainDependencies } from '../../../lib/app/composition.ts';
import { getStockRecordContract } from '../../../lib/inventory/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getStockRecordRoute } from '../../../lib/inventory/routes.ts';
import { inventoryReads } from './reads.ts';

const reads = inventoryReads();

export const handler = createOperationHandler(bindOperation(getStockRecordRoute, getStockRecordContract), chainDependencies, async ({ path, principal }) => ({
  status: 200,
  json: await reads.stockRecord(principal.organizationId, path.id),
}));
