import * as z from '../../platform/contracts/zod.ts';
import { EVENT_TYPES, EVENT_VERSION, type EventType } from '../../platform/events/types.ts';
import {
  itemId,
  itemRecordSchema,
  locationId,
  lot,
  MOVEMENT_TYPES,
  movementId,
  movementSchema,
  onHandQuantity,
  open,
  prefixedId,
  RECORD_STATUSES,
  sku,
  stockPlaceFields,
  stockRecordId,
  utcTimestamp,
} from '../../inventory/index.ts';
import { idParam } from '../../platform/contracts/primitives.ts';

/**
 * The event catalog (docs/events.md "The envelope", "Catalog"): the envelope, the `data` of every event type and
 * the page of `GET /v1/events`. The same events are pushed by webhooks.
 *
 * These schemas describe what we emit. Parsing strips unknown keys (plain `z.object`), but every
 * object is published as open (`additionalProperties: true`, via `open()`), never closed:
 * docs/events.md "The envelope" says consumers must ignore unknown fields and compatible additions
 * may add fields, so a consumer that validates with the published schemas must keep working when we add a field.
 * `scripts/generate-events-schema.ts` writes the JSON Schemas (draft 2020-12) and the examples to
 * `events-schema/`; the contract test fails when the committed files drift.
 */

// The domain owns the names and constants (lib/platform/events/types.ts, lib/inventory/domain/item.ts);
// re-exported so the catalog stays one import for its other readers.
export { EVENT_TYPES, EVENT_VERSION, isEventType } from '../../platform/events/types.ts';
export { ITEM_CHANGEABLE_FIELDS, TRACKING_MODES } from '../../inventory/index.ts';
export type { EventType } from '../../platform/events/types.ts';
export { utcTimestampSchema } from '../../inventory/index.ts';

// ---------------------------------------------------------------------------------------------
// Building blocks: the record schemas are shared with the inventory reads (lib/inventory/contracts/records.ts).

const eventId = prefixedId('evt', 'event');
/** Ids without a fixed prefix (receipts, counts, exports; docs/events.md "Catalog"): any type-prefixed opaque id. */
const opaqueId = (what: string) => idParam.check(z.describe(`Opaque ${what} id with a type prefix.`));

/** Same rule as `ORGANIZATION_ID_PATTERN` of `lib/platform/auth/manage-keys.ts` (the test checks). */
const ORGANIZATION_ID_PATTERN = /^org_[A-Za-z0-9_-]{1,64}$/;

export const eventTypeSchema = z.enum(EVENT_TYPES);

// ---------------------------------------------------------------------------------------------
// Payloads (docs/events.md "Catalog")

/** The full item as it is after the change. */
export const eventItemSchema = itemRecordSchema;

export type EventItem = z.infer<typeof eventItemSchema>;

export const itemCreatedDataSchema = open(z.object({ item: eventItemSchema }));

export const itemUpdatedDataSchema = open(
  z.object({
    item: eventItemSchema,
    changedFields: z
      .array(z.string().check(z.minLength(1)))
      .check(z.minLength(1))
      .check(
        z.describe(
          'Names of the item fields whose value changed (never `id`, `createdAt`, `updatedAt`; `sku` and `status` only from `PATCH /v1/items/{id}`, docs/inventory.md "Writing the catalog").',
        ),
      ),
    // Picked from the bare shape: zod/mini refuses to pick from an object with checks, and its
    // metadata (`open`, the description) are checks.
    previous: open(
      z.partial(
        z.pick(z.object({ ...eventItemSchema.shape, status: z.enum(RECORD_STATUSES) }), {
          sku: true,
          status: true,
          name: true,
          unit: true,
          description: true,
          category: true,
          barcode: true,
          reorderPoint: true,
          trackingMode: true,
        }),
      ),
    ).check(z.describe('The values before the change, one member per name in `changedFields`.')),
  }),
);

export const stockChangedDataSchema = open(
  z.object({
    ...stockPlaceFields,
    previousQuantity: onHandQuantity('On-hand quantity of the stock record before the change.'),
    previousUpdatedAt: z.optional(
      z.nullable(
        utcTimestamp(
          'The stock record’s `updatedAt` before the change; null when this change created the record. Absent from events committed before the field was added.',
        ),
      ),
    ),
    quantity: onHandQuantity('On-hand quantity of the stock record after the change.'),
    delta: z.number().check(z.describe('`quantity - previousQuantity`; negative when stock went down; 0 when only a reservation moved.')),
    previousReserved: z.optional(
      z.number().check(z.minimum(0), z.describe('Held by reservations before the change. Absent from events committed before reservations existed.')),
    ),
    reserved: z.optional(
      z.number().check(z.minimum(0), z.describe('Held by reservations after the change. Absent from events committed before reservations existed.')),
    ),
    previousAvailable: z.optional(
      z
        .number()
        .check(
          z.describe(
            '`previousQuantity - previousReserved`; negative only after a count set on-hand below what reservations hold. Absent from events committed before reservations existed.',
          ),
        ),
    ),
    available: z.optional(z.number().check(z.describe('`quantity - reserved`. Absent from events committed before reservations existed.'))),
    movementId: z
      .nullable(movementId)
      .check(
        z.describe(
          'The movement that changed the stock (see `movement.created`); null when a reservation was created, released or expired (on-hand did not move).',
        ),
      ),
    reservationId: z
      .optional(z.nullable(z.string().check(z.regex(/^(res|bld)_[0-9A-Z]{26}$/))))
      .check(
        z.describe(
          'The reservation (`res_…`) that held, released or shipped the stock, or the build (`bld_…`) that held, released or consumed it; null otherwise. Absent from events committed before reservations existed.',
        ),
      ),
    reason: z.nullable(z.string()).check(z.describe('Reason given with an adjustment; null when none was given.')),
  }),
);

export { MOVEMENT_TYPES, movementSchema };

export type Movement = z.infer<typeof movementSchema>;

export const movementCreatedDataSchema = open(z.object({ movement: movementSchema }));

export const poReceivedDataSchema = open(
  z.object({
    poNumber: z.string().check(z.minLength(1)),
    receiptId: opaqueId('receipt'),
    lines: z
      .array(
        open(
          z.object({
            itemId,
            sku,
            locationId,
            quantity: z.number().check(z.positive()),
            lot,
            stockRecordId: stockRecordId.check(z.describe('The stock record the quantity was received into.')),
          }),
        ),
      )
      .check(z.minLength(1)),
  }),
);

export const countCompletedDataSchema = open(
  z.object({
    countId: opaqueId('count'),
    countReference: z.string().check(z.minLength(1)),
    locationId,
    lines: z
      .array(
        open(
          z.object({
            itemId,
            sku,
            lot,
            expected: onHandQuantity('On-hand quantity before the count.'),
            counted: onHandQuantity('Counted quantity.'),
            delta: z.number().check(z.describe('`counted - expected`; 0 when there was no variance.')),
          }),
        ),
      )
      .check(z.minLength(1)),
  }),
);

export const lowStockDataSchema = open(
  z.object({
    itemId,
    sku,
    onHand: onHandQuantity('Total on-hand quantity of the item across all locations, after the change.'),
    reserved: z.optional(
      z.number().check(z.minimum(0), z.describe('Total held by reservations after the change. Absent from events committed before reservations existed.')),
    ),
    available: z.optional(
      z
        .number()
        .check(
          z.describe(
            '`onHand - reserved`: what crossed below the reorder point. Absent from events committed before reservations existed (then `onHand` crossed it).',
          ),
        ),
    ),
    reorderPoint: z.number().check(z.minimum(0)).check(z.describe('The reorder point the available quantity fell below.')),
  }),
);

export const exportCompletedDataSchema = open(
  z.object({
    exportId: opaqueId('export'),
    kind: z.string().check(z.minLength(1)).check(z.describe('Kind of export (`GET /v1/exports/kinds`).')),
    rowCount: z.int().check(z.minimum(0)),
    downloadUrl: z
      .string()
      .check(z.regex(/^\/v1\/exports\/[^/]+\/download-url$/))
      .check(
        z.describe(
          'API path that mints a fresh presigned link to the file (`GET /v1/exports/{id}/download-url`, 15 minutes): a link in the event would expire long before the feed’s retention.',
        ),
      ),
    expiresAt: utcTimestamp('When the file and the export job expire (7 days after completion).'),
  }),
);

export const EVENT_DATA_SCHEMAS = {
  'stock.changed': stockChangedDataSchema,
  'item.created': itemCreatedDataSchema,
  'item.updated': itemUpdatedDataSchema,
  'movement.created': movementCreatedDataSchema,
  'po.received': poReceivedDataSchema,
  'count.completed': countCompletedDataSchema,
  'low-stock': lowStockDataSchema,
  'export.completed': exportCompletedDataSchema,
} as const satisfies Record<EventType, z.ZodMiniObject>;

export type EventDataOf<T extends EventType> = z.infer<(typeof EVENT_DATA_SCHEMAS)[T]>;

// ---------------------------------------------------------------------------------------------
// Envelope (docs/events.md "The envelope")

const envelopeShape = {
  id: eventId.check(z.describe('Stable id of the event; the de-duplication key.')),
  type: eventTypeSchema.check(z.describe('Event type; selects the shape of `data`.')),
  version: z.literal(EVENT_VERSION).check(z.meta({ type: 'integer', description: 'Version of the event shape; 1.' })),
  occurredAt: utcTimestamp('Domain time of the event (UTC). Order by it for domain purposes, not by arrival.'),
  organizationId: z.string().check(z.regex(ORGANIZATION_ID_PATTERN)).check(z.describe('The organization the event belongs to.')),
  data: z.record(z.string(), z.unknown()).check(z.describe('Event payload; its shape depends on `type`.')),
};

const FORWARD_COMPATIBILITY = 'Consumers must ignore unknown fields: compatible additions may add fields.';

export const eventEnvelopeSchema = open(z.object(envelopeShape)).check(
  z.meta({
    id: 'EventEnvelope',
    title: 'Event envelope',
    description: `Envelope of every event of the feed and of webhooks. ${FORWARD_COMPATIBILITY}`,
  }),
);

export type EventEnvelope = z.infer<typeof eventEnvelopeSchema>;

/** One sentence per type: what happened. */
export const EVENT_DESCRIPTIONS: Record<EventType, string> = {
  'stock.changed': 'The on-hand or reserved quantity of one stock record (item, location, lot) changed.',
  'item.created': 'An item was created.',
  'item.updated': 'An item was changed.',
  'movement.created': 'A stock movement was recorded.',
  'po.received': 'Goods of a purchase order were received.',
  'count.completed': 'A stock count was completed.',
  'low-stock': "An item's total available quantity (on-hand less reserved) fell below its reorder point.",
  'export.completed': 'An export finished and can be downloaded.',
};

/** `stock.changed` → `StockChangedEvent`, `low-stock` → `LowStockEvent`. */
function componentId(type: EventType): string {
  const words = type.split(/[.-]/).map((word) => word.charAt(0).toUpperCase() + word.slice(1));
  return `${words.join('')}Event`;
}

function typedEvent<T extends EventType, D extends z.ZodMiniObject>(type: T, data: D) {
  return open(z.object({ ...envelopeShape, type: z.literal(type).check(z.describe('Event type.')), data })).check(
    z.meta({
      id: componentId(type),
      title: `${type} event`,
      description: `${EVENT_DESCRIPTIONS[type]} ${FORWARD_COMPATIBILITY}`,
    }),
  );
}

export const EVENT_SCHEMAS = {
  'stock.changed': typedEvent('stock.changed', stockChangedDataSchema),
  'item.created': typedEvent('item.created', itemCreatedDataSchema),
  'item.updated': typedEvent('item.updated', itemUpdatedDataSchema),
  'movement.created': typedEvent('movement.created', movementCreatedDataSchema),
  'po.received': typedEvent('po.received', poReceivedDataSchema),
  'count.completed': typedEvent('count.completed', countCompletedDataSchema),
  'low-stock': typedEvent('low-stock', lowStockDataSchema),
  'export.completed': typedEvent('export.completed', exportCompletedDataSchema),
} as const;

export const domainEventSchema = z
  .discriminatedUnion('type', [
    EVENT_SCHEMAS['stock.changed'],
    EVENT_SCHEMAS['item.created'],
    EVENT_SCHEMAS['item.updated'],
    EVENT_SCHEMAS['movement.created'],
    EVENT_SCHEMAS['po.received'],
    EVENT_SCHEMAS['count.completed'],
    EVENT_SCHEMAS['low-stock'],
    EVENT_SCHEMAS['export.completed'],
  ])
  .check(z.meta({ id: 'DomainEvent', description: 'An event of the catalog, with the `data` of its type.' }));

export type DomainEvent = z.infer<typeof domainEventSchema>;
export type EventOf<T extends EventType> = Extract<DomainEvent, { type: T }>;

// ---------------------------------------------------------------------------------------------
// GET /v1/events

export const eventsPageSchema = open(
  z.object({
    data: z.array(domainEventSchema).check(z.describe('Events in feed order, oldest first; may be empty.')),
    page: open(
      z.object({
        nextCursor: z
          .string()
          .check(z.minLength(1))
          .check(z.describe('Always present, also on an empty page and at the tail: send it back unchanged as `cursor` to continue.')),
      }),
    ),
  }),
).check(z.meta({ id: 'EventsPage', description: 'A page of the events feed.' }));

export type EventsPage = z.infer<typeof eventsPageSchema>;

// Examples, one per type (published in events-schema/examples/).
export { EVENT_EXAMPLES } from './examples.ts';
