/**
 * The plain values of the event catalog (lib/contracts/events.ts), without a zod schema. Code
 * that needs only a name from the catalog (the feed's `type` filter, the items import kind)
 * imports it from here: every top-level zod call of a module survives tree-shaking, so importing
 * one constant from the catalog would bundle all its schemas into that function.
 */

export const EVENT_TYPES = [
  'stock.changed',
  'item.created',
  'item.updated',
  'movement.created',
  'po.received',
  'count.completed',
  'low-stock',
  'export.completed',
] as const;

export type EventType = (typeof EVENT_TYPES)[number];

export const EVENT_VERSION = 1;

export function isEventType(value: string): value is EventType {
  return (EVENT_TYPES as readonly string[]).includes(value);
}

export const TRACKING_MODES = ['none', 'lot'] as const;

/** Item fields an update can change (not `sku`: the natural key never changes); `changedFields` and `previous` name only these. */
export const ITEM_CHANGEABLE_FIELDS = ['name', 'unit', 'description', 'category', 'barcode', 'reorderPoint', 'trackingMode'] as const;
