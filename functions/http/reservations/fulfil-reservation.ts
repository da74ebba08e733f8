import { transactionWriter, writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { fulfilReservationContract } from '../../../lib/reservations/contracts/operations.ts';
import { SettleReservationCommand } from '../../../lib/reservations/domain/settle.ts';
import { decideAgainOnLostRace } from '../../../lib/stock/domain/changes/commit.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { requestSliceRun } from '../../../lib/platform/http/slice-run.ts';
import { fulfilReservationRoute } from '../../../lib/reservations/routes.ts';
import { reservationPorts } from '../../../lib/reservations/store/reservation-ports.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const command = new SettleReservationCommand(reservationPorts(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(
  bindOperation(fulfilReservationRoute, fulfilReservationContract),
  writeChainDependencies,
  async ({ path, body, principal, traceId, event, commit }) =>
    decideAgainOnLostRace(() =>
      commit(
        () => command.settle(principal.organizationId, path.id, 'fulfil', body?.lines, requestSliceRun(transactionWriter, { principal, traceId, event })),
        (reservation) => ({ status: 200, json: reservation }),
      ),
    ),
);
