/**
 * Items: what is stocked. Identified by `id` (`itm_…`); `sku` is the natural key, unique per
 * organization; a PATCH may rename it (docs/inventory.md "Writing the catalog"), an import never does.
 */

export const TRACKING_MODES = ['none', 'lot'] as const;

export type TrackingMode = (typeof TRACKING_MODES)[number];

/** An item or location is `active` or `archived` (docs/inventory.md "Writing the catalog"). */
export const RECORD_STATUSES = ['active', 'archived'] as const;

export type RecordStatus = (typeof RECORD_STATUSES)[number];

/** The stored item, as events carry it (`eventItemSchema` of `lib/events/contracts/events.ts`). */
export interface Item {
  id: string;
  sku: string;
  name: string;
  unit: string;
  description: string | null;
  category: string | null;
  barcode: string | null;
  reorderPoint: number | null;
  trackingMode: TrackingMode;
  /**
   * Present only on an archived item: an active item is stored (and carried by its events)
   * without it, exactly as before archiving existed, so their envelopes stay the same.
   */
  status?: 'archived';
  createdAt: string;
  updatedAt: string;
}

/** Item fields an import row can change (not `sku`, the natural key; a PATCH may also change `sku` and `status`: ITEM_UPDATABLE_FIELDS of catalog.ts). */
export const ITEM_CHANGEABLE_FIELDS = ['name', 'unit', 'description', 'category', 'barcode', 'reorderPoint', 'trackingMode'] as const;

export const ITEM_DEFAULT_UNIT = 'ea';
export const ITEM_DEFAULT_TRACKING_MODE: TrackingMode = 'none';

/** Maximum lengths in characters. */
export const ITEM_MAX_LENGTHS = { sku: 64, name: 200, unit: 16, description: 2000, category: 100, barcode: 64 } as const;
