import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { getStockChangeContract } from '../../../lib/stock/contracts/operations.ts';
import { NotFoundError } from '../../../lib/platform/core/errors.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getStockChangeRoute } from '../../../lib/stock/routes.ts';
import { StockChangesStore } from '../../../lib/stock/store/stock-changes-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const changes = new StockChangesStore(requiredEnv(TABLES.inventory.envVar));

export const handler = createOperationHandler(bindOperation(getStockChangeRoute, getStockChangeContract), chainDependencies, async ({ path, principal }) => {
  const change = await changes.get(principal.organizationId, path.id);
  if (!change) throw new NotFoundError('stock', 'No stock change with this id.');
  return { status: 200, json: change };
});
