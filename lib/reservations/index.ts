/**
 * The door of the reservations area: what another area's domain, contracts and routes may import of
 * it, nothing more (docs/architecture.md "Areas and their doors").
 */
export { leftOf } from './domain/reservation.ts';
export type { Reservation } from './domain/reservation.ts';
export { RESERVATION_STATUSES } from './domain/statuses.ts';
