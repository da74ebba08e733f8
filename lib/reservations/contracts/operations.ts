import * as z from '../../platform/contracts/zod.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { idParam } from '../../platform/contracts/primitives.ts';
import { createReservationBody, listReservationsQuery, settleReservationBody } from './reservations.ts';

/** The request contracts of the Reservations routes (docs/inventory.md "Reservations and available stock"). */

const reservationPath = /* @__PURE__ */ (() => z.strictObject({ id: idParam }))();

export const createReservationContract = defineOperation({ operationId: 'createReservation', request: { body: createReservationBody } });

export const listReservationsContract = defineOperation({ operationId: 'listReservations', request: { query: listReservationsQuery } });

export const getReservationContract = defineOperation({ operationId: 'getReservation', request: { path: reservationPath } });

export const releaseReservationContract = defineOperation({
  operationId: 'releaseReservation',
  request: { path: reservationPath, body: settleReservationBody },
});

export const fulfilReservationContract = defineOperation({ operationId: 'fulfilReservation', request: { path: reservationPath, body: settleReservationBody } });
