import * as z from './zod.ts';
import { EVENT_TYPES, EVENT_VERSION, type EventType } from '../domain/events/types.ts';
import { TRACKING_MODES } from '../domain/inventory/item.ts';
import { idParam } from './primitives.ts';

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

// The domain owns the names and constants (lib/domain/events/types.ts, lib/domain/inventory/item.ts);
// re-exported so the catalog stays one import for its other readers.
export { EVENT_TYPES, EVENT_VERSION, isEventType } from '../domain/events/types.ts';
export { ITEM_CHANGEABLE_FIELDS, TRACKING_MODES } from '../domain/inventory/item.ts';
export type { EventType } from '../domain/events/types.ts';

// ---------------------------------------------------------------------------------------------
// Building blocks

/** Publishes an object schema as open (see the header); parsing still strips unknown keys. */
function open<T extends z.ZodMiniObject>(schema: T): T {
  return schema.check(z.meta({ additionalProperties: true }));
}

/** A type-prefixed opaque id (`itm_…`), shaped like every id the API accepts in a path (`idParam`). */
function prefixedId(prefix: string, what: string): z.ZodMiniString {
  return z
    .string()
    .check(z.regex(new RegExp(`^${prefix}_[0-9A-Za-z]{10,40}$`), { message: `Must be an opaque ${what} id (${prefix}_…).` }))
    .check(z.describe(`Opaque ${what} id (prefix \`${prefix}_\`).`));
}

/** Same rule as `ORGANIZATION_ID_PATTERN` of `lib/domain/auth/manage-keys.ts` (the test checks). */
const ORGANIZATION_ID_PATTERN = /^org_[A-Za-z0-9_-]{1,64}$/;

const eventId = prefixedId('evt', 'event');
const itemId = prefixedId('itm', 'item');
const locationId = prefixedId('loc', 'location');
const stockRecordId = prefixedId('stk', 'stock record');
const movementId = prefixedId('mov', 'movement');
/** Ids without a fixed prefix (receipts, counts, exports; docs/events.md "Catalog"): any type-prefixed opaque id. */
const opaqueId = (what: string) => idParam.check(z.describe(`Opaque ${what} id with a type prefix.`));

/** ISO 8601 UTC with `Z`, optional fractional seconds; offsets such as `+01:00` are rejected. */
export const utcTimestampSchema = z.iso.datetime({ message: 'Must be an ISO 8601 UTC timestamp ending in Z, e.g. 2026-03-02T09:14:05Z.' });

const utcTimestamp = (description: string) => utcTimestampSchema.check(z.describe(description));
const sku = z
  .string()
  .check(z.minLength(1))
  .check(z.describe('Stock keeping unit of the item.'));
const lot = z.nullable(z.string().check(z.minLength(1))).check(z.describe('Lot number; null for items without lot tracking and for stock without a lot.'));
const onHandQuantity = (description: string) =>
  z
    .number()
    .check(z.minimum(0))
    .check(z.describe(description));

export const eventTypeSchema = z.enum(EVENT_TYPES);

// ---------------------------------------------------------------------------------------------
// Payloads (docs/events.md "Catalog")

/** The full item as it is after the change. */
export const eventItemSchema = open(
  z.object({
    id: itemId,
    sku,
    name: z.string().check(z.minLength(1)),
    unit: z
      .string()
      .check(z.minLength(1))
      .check(z.describe('Unit of measure, e.g. `ea`, `kg`, `l`.')),
    description: z.nullable(z.string()),
    category: z.nullable(z.string()),
    barcode: z.nullable(z.string()),
    reorderPoint: z
      .nullable(z.number().check(z.minimum(0)))
      .check(z.describe('On-hand quantity below which `low-stock` is emitted; null: no reorder point.')),
    trackingMode: z.enum(TRACKING_MODES),
    createdAt: utcTimestamp('When the item was created.'),
    updatedAt: utcTimestamp('When the item was last changed.'),
  }),
).check(z.meta({ description: 'An item (full record).' }));

export type EventItem = z.infer<typeof eventItemSchema>;

export const itemCreatedDataSchema = open(z.object({ item: eventItemSchema }));

export const itemUpdatedDataSchema = open(
  z.object({
    item: eventItemSchema,
    changedFields: z
      .array(z.string().check(z.minLength(1)))
      .check(z.minLength(1))
      .check(z.describe('Names of the item fields whose value changed (never `id`, `sku`, `createdAt`, `updatedAt`).')),
    // Picked from the bare shape: zod/mini refuses to pick from an object with checks, and its
    // metadata (`open`, the description) are checks.
    previous: open(
      z.partial(
        z.pick(z.object(eventItemSchema.shape), { name: true, unit: true, description: true, category: true, barcode: true, reorderPoint: true, trackingMode: true }),
      ),
    ).check(z.describe('The values before the change, one member per name in `changedFields`.')),
  }),
);

export const stockChangedDataSchema = open(
  z.object({
    stockRecordId,
    itemId,
    sku,
    locationId,
    locationCode: z.string().check(z.minLength(1)),
    lot,
    previousQuantity: onHandQuantity('On-hand quantity of the stock record before the change.'),
    quantity: onHandQuantity('On-hand quantity of the stock record after the change.'),
    delta: z.number().check(z.describe('`quantity - previousQuantity`; negative when stock went down.')),
    movementId: movementId.check(z.describe('The movement that changed the stock (see `movement.created`).')),
    reason: z.nullable(z.string()).check(z.describe('Reason given with an adjustment; null when none was given.')),
  }),
);

export const MOVEMENT_TYPES = ['receipt', 'adjustment', 'transfer', 'count', 'consumption', 'production'] as const;

export const movementSchema = open(
  z.object({
    id: movementId,
    type: z.enum(MOVEMENT_TYPES),
    itemId,
    sku,
    fromLocationId: z.nullable(locationId).check(z.describe('Where the stock left; null when it entered the organization (receipt, production, increase).')),
    toLocationId: z.nullable(locationId).check(z.describe('Where the stock arrived; null when it left the organization (consumption, decrease).')),
    quantity: z
      .number()
      .check(z.positive())
      .check(z.describe('Quantity moved, always positive; the direction is given by the locations.')),
    lot,
    reference: z
      .nullable(z.string().check(z.minLength(1)))
      .check(z.describe('Business reference: the adjustment or transfer reference, PO number, count reference or build reference.')),
  }),
);

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
    reorderPoint: z
      .number()
      .check(z.minimum(0))
      .check(z.describe('The reorder point the on-hand quantity fell below.')),
  }),
);

export const exportCompletedDataSchema = open(
  z.object({
    exportId: opaqueId('export'),
    kind: z
      .string()
      .check(z.minLength(1))
      .check(z.describe('Kind of export.')),
    rowCount: z.int().check(z.minimum(0)),
    downloadUrl: z.url().check(z.describe('Short-lived URL of the export file.')),
    expiresAt: utcTimestamp('When `downloadUrl` stops working.'),
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
  organizationId: z
    .string()
    .check(z.regex(ORGANIZATION_ID_PATTERN))
    .check(z.describe('The organization the event belongs to.')),
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
  'stock.changed': 'The on-hand quantity of one stock record (item, location, lot) changed.',
  'item.created': 'An item was created.',
  'item.updated': 'An item was changed.',
  'movement.created': 'A stock movement was recorded.',
  'po.received': 'Goods of a purchase order were received.',
  'count.completed': 'A stock count was completed.',
  'low-stock': "An item's total on-hand quantity fell below its reorder point.",
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

// ---------------------------------------------------------------------------------------------
// Examples (one per type; published in events-schema/examples/)

const ORGANIZATION = 'org_acme';
const ITEM_ID = 'itm_01KH3AQWT0ZCB6Z8FRSJRCD9CS';
const LOCATION_ID = 'loc_01KF078DC02V2SXEHM79QT7VQ9';
const STOCK_RECORD_ID = 'stk_01KH8MP4807D4A2FX90YJXQ7VB';
const SKU = 'OIL-HV46';
const LOT = 'HV46-2603';

const exampleItem: EventDataOf<'item.created'>['item'] = {
  id: ITEM_ID,
  sku: SKU,
  name: 'Hydraulic oil HV 46',
  unit: 'l',
  description: null,
  category: 'Lubricants',
  barcode: '4006381333931',
  reorderPoint: 150,
  trackingMode: 'lot',
  createdAt: '2026-02-10T08:30:00.000Z',
  updatedAt: '2026-02-10T08:30:00.000Z',
};

export const EVENT_EXAMPLES: { readonly [T in EventType]: EventOf<T> } = {
  'stock.changed': {
    id: 'evt_00000001110212F2JFYJKD6FXN',
    type: 'stock.changed',
    version: 1,
    occurredAt: '2026-03-03T11:02:44.118Z',
    organizationId: ORGANIZATION,
    data: {
      stockRecordId: STOCK_RECORD_ID,
      itemId: ITEM_ID,
      sku: SKU,
      locationId: LOCATION_ID,
      locationCode: 'WH1-A-01',
      lot: LOT,
      previousQuantity: 400,
      quantity: 380,
      delta: -20,
      movementId: 'mov_01KJSNTN10C22JDJ1QJMZVHAA0',
      reason: 'Damaged container',
    },
  },
  'item.created': {
    id: 'evt_000000009RADPCB6PPSEGFYV43',
    type: 'item.created',
    version: 1,
    occurredAt: '2026-02-10T08:30:00.000Z',
    organizationId: ORGANIZATION,
    data: { item: exampleItem },
  },
  'item.updated': {
    id: 'evt_000000010ESRY7YWD0ZW5B0775',
    type: 'item.updated',
    version: 1,
    occurredAt: '2026-02-27T14:05:12.481Z',
    organizationId: ORGANIZATION,
    data: {
      item: { ...exampleItem, description: 'ISO VG 46 hydraulic oil, bulk', reorderPoint: 200, updatedAt: '2026-02-27T14:05:12.481Z' },
      changedFields: ['description', 'reorderPoint'],
      previous: { description: null, reorderPoint: 150 },
    },
  },
  'movement.created': {
    id: 'evt_000000010JA4WNP248F8EGS5W1',
    type: 'movement.created',
    version: 1,
    occurredAt: '2026-03-02T09:14:05.000Z',
    organizationId: ORGANIZATION,
    data: {
      movement: {
        id: 'mov_01KJPX6ZT8MKYT6YPE0ZSHBVX3',
        type: 'receipt',
        itemId: ITEM_ID,
        sku: SKU,
        fromLocationId: null,
        toLocationId: LOCATION_ID,
        quantity: 400,
        lot: LOT,
        reference: 'PO-2026-0042',
      },
    },
  },
  'po.received': {
    id: 'evt_000000010H77BWTBB5F3Q31VNQ',
    type: 'po.received',
    version: 1,
    occurredAt: '2026-03-02T09:14:05.000Z',
    organizationId: ORGANIZATION,
    data: {
      poNumber: 'PO-2026-0042',
      receiptId: 'rcp_01KJPX6ZT81W7RP5ZGTT6ECKBN',
      lines: [{ itemId: ITEM_ID, sku: SKU, locationId: LOCATION_ID, quantity: 400, lot: LOT, stockRecordId: STOCK_RECORD_ID }],
    },
  },
  'count.completed': {
    id: 'evt_0000000153F8B6EB7J6CEV3RQJ',
    type: 'count.completed',
    version: 1,
    occurredAt: '2026-03-03T16:40:00.000Z',
    organizationId: ORGANIZATION,
    data: {
      countId: 'cnt_01KJT946R0E7052YVB0E51YF3D',
      countReference: 'CNT-2026-03-A',
      locationId: LOCATION_ID,
      lines: [
        { itemId: ITEM_ID, sku: SKU, lot: LOT, expected: 380, counted: 374.75, delta: -5.25 },
        { itemId: ITEM_ID, sku: SKU, lot: 'HV46-2511', expected: 12.5, counted: 12.5, delta: 0 },
      ],
    },
  },
  'low-stock': {
    id: 'evt_000000015TBHMHZXZMWYECQYZX',
    type: 'low-stock',
    version: 1,
    occurredAt: '2026-03-05T07:12:30.902Z',
    organizationId: ORGANIZATION,
    data: { itemId: ITEM_ID, sku: SKU, onHand: 187.75, reorderPoint: 200 },
  },
  'export.completed': {
    id: 'evt_000000015M37BCCEVJ6C8QA5ER',
    type: 'export.completed',
    version: 1,
    occurredAt: '2026-03-04T06:00:07.000Z',
    organizationId: ORGANIZATION,
    data: {
      exportId: 'exp_01KJVPX1R0PQ2GPX0Z4BY79MZE',
      kind: 'stock-on-hand',
      rowCount: 1342,
      downloadUrl: 'https://downloads.example.com/exports/exp_01KJVPX1R0PQ2GPX0Z4BY79MZE.csv?X-Amz-Expires=900&X-Amz-Signature=5e1c0a9b',
      expiresAt: '2026-03-04T06:15:07.000Z',
    },
  },
};
