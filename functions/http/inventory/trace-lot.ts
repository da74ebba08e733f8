import { chainDependencies } from '../../../lib/app/composition.ts';
import { cursorKeys } from '../../../lib/platform/config/cursors.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { traceLotContract } from '../../../lib/lots/contracts/trace-lot.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { LotTraces } from '../../../lib/lots/domain/trace-lot.ts';
import { CursorCodec } from '../../../lib/platform/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { traceLotRoute } from '../../../lib/inventory/routes.ts';
import { LotTraceStore } from '../../../lib/lots/store/lot-trace-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const traces = new LotTraces(new LotTraceStore(requiredEnv(TABLES.inventory.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(traceLotRoute, traceLotContract), chainDependencies, async ({ query, principal }) => {
  const { cursor, ...rest } = query;
  const trace = await traces.trace(principal.organizationId, { ...rest, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: trace };
});
