import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { getStockChangeContract } from '../../../lib/contracts/stock/operations.ts';
import { NotFoundError } from '../../../lib/domain/errors.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getStockChangeRoute } from '../../../lib/routes/stock.ts';
import { StockChangesStore } from '../../../lib/store/stock-changes-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const changes = new StockChangesStore(requiredEnv(TABLES.inventory.envVar));

export const handler = createOperationHandler(bindOperation(getStockChangeRoute, getStockChangeContract), chainDependencies, async ({ path, principal }) => {
  const change = await changes.get(principal.organizationId, path.id);
  if (!change) throw new NotFoundError('stock', 'No stock change with this id.');
  return { status: 200, json: change };
});
