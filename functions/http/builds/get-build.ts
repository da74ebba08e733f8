import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { getBuildContract } from '../../../lib/builds/contracts/operations.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { buildNotFound, publicBuild } from '../../../lib/builds/domain/build.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getBuildRoute } from '../../../lib/builds/routes.ts';
import { BuildsStore } from '../../../lib/builds/store/builds-store.ts';
import { StockStore } from '../../../lib/stock/store/stock-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const store = new BuildsStore(table, new StockStore(table));

export const handler = createOperationHandler(bindOperation(getBuildRoute, getBuildContract), chainDependencies, async ({ path, principal }) => {
  const stored = await store.get(principal.organizationId, path.id);
  if (!stored) throw buildNotFound();
  return { status: 200, json: publicBuild(stored.build) };
});
