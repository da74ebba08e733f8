import { chainDependencies } from '../../../lib/app/composition.ts';
import { requiredEnv } from '../../../lib/platform/config/env.ts';
import { bindOperation } from '../../../lib/platform/contracts/operation.ts';
import { getReservationContract } from '../../../lib/reservations/contracts/operations.ts';
import { reservationNotFound } from '../../../lib/reservations/domain/reservation.ts';
import { createOperationHandler } from '../../../lib/platform/http/chain.ts';
import { getReservationRoute } from '../../../lib/reservations/routes.ts';
import { ReservationsStore } from '../../../lib/reservations/store/reservations-store.ts';
import { TABLES } from '../../../lib/platform/storage/tables.ts';

const store = new ReservationsStore(requiredEnv(TABLES.inventory.envVar));

export const handler = createOperationHandler(bindOperation(getReservationRoute, getReservationContract), chainDependencies, async ({ path, principal }) => {
  const stored = await store.get(principal.organizationId, path.id);
  if (!stored) throw reservationNotFound();
  return { status: 200, json: stored.reservation };
});
