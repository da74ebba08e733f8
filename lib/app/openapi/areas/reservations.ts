import type { RESERVATION_ROUTES } from '../../../reservations/routes.ts';
import {
  createReservationContract,
  fulfilReservationContract,
  getReservationContract,
  listReservationsContract,
  releaseReservationContract,
} from '../../../reservations/contracts/operations.ts';
import { reservationSchema, reservationsPageSchema } from '../../../reservations/contracts/reservations.ts';
import type { OpenApiArea } from './types.ts';

/** The Reservations area in the OpenAPI document. */
export const reservationsOpenApi = {
  tag: {
    name: 'Reservations',
    description: 'Stock held for an order or a build, so nothing else takes it, until it is released, fulfilled or expires; available = on-hand − reserved.',
  },
  operations: {
    createReservation: { contract: createReservationContract, response: reservationSchema },
    listReservations: { contract: listReservationsContract, response: reservationsPageSchema },
    getReservation: { contract: getReservationContract, response: reservationSchema },
    releaseReservation: { contract: releaseReservationContract, response: reservationSchema },
    fulfilReservation: { contract: fulfilReservationContract, response: reservationSchema },
  },
  problemCodes: {
    createReservation: {
      409: [
        'customer-api.stock.insufficient-stock',
        'customer-api.reservations.reference-taken',
        'customer-api.reservations.too-large',
        'customer-api.request.conflict',
        'customer-api.inventory.item-archived',
        'customer-api.inventory.location-archived',
      ],
    },
    releaseReservation: {
      404: ['customer-api.reservations.not-found'],
      409: ['customer-api.reservations.not-active', 'customer-api.reservations.over-quantity', 'customer-api.request.conflict'],
    },
    fulfilReservation: {
      404: ['customer-api.reservations.not-found'],
      409: [
        'customer-api.reservations.not-active',
        'customer-api.reservations.over-quantity',
        'customer-api.stock.insufficient-stock',
        'customer-api.request.conflict',
      ],
    },
    getReservation: { 404: ['customer-api.reservations.not-found'] },
  },
} satisfies OpenApiArea<typeof RESERVATION_ROUTES>;
