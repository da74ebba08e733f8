import { chainDependencies } from '../../../lib/composition.ts';
import { requiredEnv } from '../../../lib/config/env.ts';
import { bindOperation } from '../../../lib/contracts/operation.ts';
import { getReservationContract } from '../../../lib/contracts/reservations/operations.ts';
import { reservationNotFound } from '../../../lib/domain/reservations/reservation.ts';
import { createOperationHandler } from '../../../lib/http/chain.ts';
import { getReservationRoute } from '../../../lib/routes/reservations.ts';
import { ReservationsStore } from '../../../lib/store/reservations-store.ts';
import { TABLES } from '../../../lib/store/tables.ts';

const store = new ReservationsStore(requiredEnv(TABLES.inventory.envVar));

export const handler = createOperationHandler(bindOperation(getReservationRoute, getReservationContract), chainDependencies, async ({ path, principal }) => {
  const stored = await store.get(principal.organizationId, path.id);
  if (!stored) throw reservationNotFound();
  return { status: 200, json: stored.reservation };
});
