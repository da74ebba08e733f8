import { chainDependencies } from '../../../lib/composition.ts';
import { cursorKeys } from '../../../lib/config/cursors.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { traceLotContract } from '../../../lib/contracts/lots/trace-lot.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { LotTraces } from '../../../lib/domain/lots/trace-lot.ts';
import { CursorCodec } from '../../../lib/domain/pagination/cursor.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { traceLotRoute } from '../../../lib/routes/inventory.ts';
import { LotTraceStore } from '../../../lib/store/lot-trace-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const traces = new LotTraces(new LotTraceStore(requiredEnv(TABLES.inventory.envVar)), new CursorCodec(await cursorKeys()));

export const handler = createOperationHandler(bindOperation(traceLotRoute, traceLotContract), chainDependencies, async ({ query, principal }) => {
  const { cursor, ...rest } = query;
  const trace = await traces.trace(principal.organizationId, { ...rest, ...(cursor === undefined ? {} : { cursor }) });
  return { status: 200, json: trace };
});
