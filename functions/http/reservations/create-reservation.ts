import { transactionWriter, writeChainDependencies } from '../../../lib/composition-writes.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { createReservationContract } from '../../../lib/contracts/reservations/operations.ts';
import { ReserveCommand } from '../../../lib/domain/reservations/reserve.ts';
import { decideAgainOnLostRace } from '../../../lib/domain/stock/changes/commit.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { requestSliceRun } from '../../../lib/http/slice-run.ts';
import { createReservationRoute } from '../../../lib/routes/reservations.ts';
import { reservationPorts } from '../../../lib/store/reservation-ports.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const command = new ReserveCommand(reservationPorts(requiredEnv(TABLES.inventory.envVar)));

export const handler = createOperationHandler(bindOperation(createReservationRoute, createReservationContract), writeChainDependencies, async ({ body, principal, traceId, event, commit }) =>
  decideAgainOnLostRace(() =>
    commit(
      () => command.create(principal.organizationId, { reference: body.reference, expiresAt: body.expiresAt ?? null, lines: body.lines.map((line) => ({ ...line, lot: line.lot ?? null })) }, requestSliceRun(transactionWriter, { principal, traceId, event })),
      (reservation) => ({ status: 201, json: reservation, headers: { Location: `/v1/reservations/${reservation.id}` } }),
    ),
  ),
);
