/**
 * A reservation's statuses (docs/inventory.md "Reservations and available stock"), apart from the
 * model so that plain declarations (the export kinds, which every export function bundles) name
 * them without the rest.
 */
export const RESERVATION_STATUSES = ['active', 'released', 'fulfilled', 'expired'] as const;
export type ReservationStatus = (typeof RESERVATION_STATUSES)[number];
