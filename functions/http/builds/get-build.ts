import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { getBuildContract } from '../../../lib/contracts/builds/operations.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { buildNotFound, publicBuild } from '../../../lib/domain/builds/build.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getBuildRoute } from '../../../lib/routes/builds.ts';
import { BuildsStore } from '../../../lib/store/builds-store.ts';
import { StockStore } from '../../../lib/store/stock-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const table = requiredEnv(TABLES.inventory.envVar);
const store = new BuildsStore(table, new StockStore(table));

export const handler = createOperationHandler(bindOperation(getBuildRoute, getBuildContract), chainDependencies, async ({ path, principal }) => {
  const stored = await store.get(principal.organizationId, path.id);
  if (!stored) throw buildNotFound();
  return { status: 200, json: publicBuild(stored.build) };
});
