import { transactionWriter, writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { releaseReservationContract } from '../../../lib/contracts/reservations/operations.ts';
import { SettleReservationCommand } from '../../../lib/domain/reservations/settle.ts';
import { decideAgainOnLostRace } from '../../../lib/domain/stock/changes/commit.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { requestSliceRun } from '../../../lib/http/slice-run.ts';
import { releaseReservationRoute } from '../../../lib/routes/reservations.ts';
import { reservationPorts } from '../../../lib/store/reservation-ports.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const command = new SettleReservationCommand(reservationPorts(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(bindOperation(releaseReservationRoute, releaseReservationContract), writeChainDependencies, async ({ path, body, principal, traceId, event, commit }) =>
  decideAgainOnLostRace(() =>
    commit(
      () => command.settle(principal.organizationId, path.id, 'release', body?.lines, requestSliceRun(transactionWriter, { principal, traceId, event })),
      (reservation) => ({ status: 200, json: reservation }),
    ),
  ),
);
