/**
 * Locations: where stock is, as a tree (warehouse → zone → bin). Identified by `id` (`loc_…`);
 * `code` is the natural key, unique per organization; a PATCH may rename it, an import never does. A location names its
 * parent by code; no location may be its own ancestor (see `hierarchy.ts`).
 */

export const LOCATION_TYPES = ['warehouse', 'zone', 'bin'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];

export interface Location {
  id: string;
  code: string;
  name: string;
  type: LocationType;
  parentCode: string | null;
  /** Present only on an archived location (as an item's `status`). */
  status?: 'archived';
  createdAt: string;
  updatedAt: string;
}

export const LOCATION_DEFAULT_TYPE: LocationType = 'bin';

/** Maximum lengths in characters. */
export const LOCATION_MAX_LENGTHS = { code: 64, name: 200, parentCode: 64 } as const;
