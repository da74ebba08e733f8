// The reservations area's stored kinds, declared once with their keys (docs/architecture.md "Storage: the entity layer"):
// no other module writes these key strings. Each is marked pure, so only reservation functions bundle them.
import { defineEntity } from '../../platform/dynamo/entity.ts';
import { ACTIVE_JOB_SHARDS } from '../../platform/dynamo/keys.ts';

/** The organization's reservations partition: the reservations, their reference claims and their before-images. */
export const reservationsPartitionOf = (organizationId: string) => `ORG#${organizationId}#RESERVATIONS`;
/** Sort-key prefix of the reservations themselves (the list's range). */
export const RESERVATION_PREFIX = 'RES';

/** One reservation, listed by id (so oldest first). */
export const reservationEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; id: string }>({
  type: 'reservation',
  schemaVersion: 1,
  key: ({ organizationId, id }) => ({ pk: reservationsPartitionOf(organizationId), sk: `${RESERVATION_PREFIX}#${id}` }),
});

/** The claim of a reservation's reference, put only where absent in the reservation's own transaction. */
export const referenceClaimEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; reference: string }>({
  type: 'reservation-reference',
  schemaVersion: 1,
  key: ({ organizationId, reference }) => ({ pk: reservationsPartitionOf(organizationId), sk: `REF#${reference}` }),
});

/** A reservation as it was before one change (lib/reservations/store/reservation-before-images.ts). */
export const beforeImageEntity = /* @__PURE__ */ defineEntity<{ organizationId: string; reservationId: string; changedAt: string }>({
  type: 'reservation-before-image',
  schemaVersion: 1,
  // `BEFORE#`, not `RES…`: the reservation list's range (`RES#`) never reads them.
  key: ({ organizationId, reservationId, changedAt }) => ({ pk: reservationsPartitionOf(organizationId), sk: `BEFORE#${reservationId}#${changedAt}` }),
});

/** gsi1, the expiry index of active reservations: a shard each, sorted by when the sweep should look. */
export const RESERVATION_EXPIRY_INDEX = 'gsi1';
export const RESERVATION_EXPIRY_SHARDS = ACTIVE_JOB_SHARDS;
export const reservationExpiryShard = (shard: number) => `RESEXPIRY#${shard}`;
