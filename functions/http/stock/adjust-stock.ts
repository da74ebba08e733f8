import { writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { adjustStockContract } from '../../../lib/contracts/stock/operations.ts';
import { AdjustStockCommand } from '../../../lib/domain/stock/changes/adjust.ts';
import { commitStockChange } from '../../../lib/domain/stock/changes/commit.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { adjustStockRoute } from '../../../lib/routes/stock.ts';
import { stockChangePorts } from '../../../lib/store/stock-change-ports.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const ports = stockChangePorts(requiredEnv(TABLES.inventory.envVar));
const command = new AdjustStockCommand(ports);

export const handler = createOperationHandler(bindOperation(adjustStockRoute, adjustStockContract), writeChainDependencies, async ({ body, principal, commit }) =>
  commitStockChange(
    (precreated) =>
      commit(
        () => command.adjust(principal.organizationId, { reference: body.reference, reason: body.reason ?? null, lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })) }, precreated),
        (change) => ({ status: 201, json: change, headers: { Location: `/v1/stock/changes/${change.id}` } }),
      ),
    (records) => ports.createRecords(principal.organizationId, records),
  ),
);
