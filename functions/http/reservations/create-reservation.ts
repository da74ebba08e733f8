import { transactionWriter, writeChainDependencies } from '../../../lib/app/composition-writes.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { createReservationContract } from '../../../lib/reservations/contracts/operations.ts';
import { ReserveCommand } from '../../../lib/reservations/domain/reserve.ts';
import { decideAgainOnLostRace } from '../../../lib/stock/domain/changes/commit.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { requestSliceRun } from '../../../lib/platform/http/slice-run.ts';
import { createReservationRoute } from '../../../lib/reservations/routes.ts';
import { reservationPorts } from '../../../lib/reservations/store/reservation-ports.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const command = new ReserveCommand(reservationPorts(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(
  bindOperation(createReservationRoute, createReservationContract),
  writeChainDependencies,
  async ({ body, principal, traceId, event, commit }) =>
    decideAgainOnLostRace(() =>
      commit(
        () =>
          command.create(
            principal.organizationId,
            { reference: body.reference, expiresAt: body.expiresAt ?? null, lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })) },
            requestSliceRun(transactionWriter, { principal, traceId, event }),
          ),
        (reservation) => ({ status: 201, json: reservation, headers: { Location: `/v1/reservations/${reservation.id}` } }),
      ),
    ),
);
