import * as z from '../../platform/contracts/zod.ts';
import { LOCATION_TYPES } from '../domain/location.ts';
import { MOVEMENT_TYPES } from '../domain/stock.ts';
import { TRACKING_MODES } from '../domain/item.ts';

export { MOVEMENT_TYPES } from '../domain/stock.ts';

/**
 * The inventory records, one schema each: what the events carry (lib/events/contracts/events.ts builds
 * its payloads from these) and what the inventory reads answer (docs/inventory.md "Reading
 * inventory"), so the two can never drift. Only the OpenAPI generator, the event schemas and the
 * tests import this module; no function does (responses are not validated at run time).
 */

/**
 * Publishes an object schema as open (`additionalProperties: true`); parsing still strips unknown
 * keys. Consumers must ignore unknown fields (docs/events.md "The envelope"), so a consumer that
 * validates with the published schemas keeps working when a field is added.
 */
export function open<T extends z.ZodMiniObject>(schema: T): T {
  return schema.check(z.meta({ additionalProperties: true }));
}

/** A type-prefixed opaque id (`itm_…`), shaped like every id the API accepts in a path (`idParam`). */
export function prefixedId(prefix: string, what: string): z.ZodMiniString {
  return z
    .string()
    .check(z.regex(new RegExp(`^${prefix}_[0-9A-Za-z]{10,40}$`), { message: `Must be an opaque ${what} id (${prefix}_…).` }))
    .check(z.describe(`Opaque ${what} id (prefix \`${prefix}_\`).`));
}

export const itemId = prefixedId('itm', 'item');
export const locationId = prefixedId('loc', 'location');
export const stockRecordId = prefixedId('stk', 'stock record');
export const movementId = prefixedId('mov', 'movement');

/** ISO 8601 UTC with `Z`, optional fractional seconds; offsets such as `+01:00` are rejected. */
export const utcTimestampSchema = z.iso.datetime({ message: 'Must be an ISO 8601 UTC timestamp ending in Z, e.g. 2026-03-02T09:14:05Z.' });

export const utcTimestamp = (description: string) => utcTimestampSchema.check(z.describe(description));
export const sku = z.string().check(z.minLength(1)).check(z.describe('Stock keeping unit of the item.'));
export const locationCode = z.string().check(z.minLength(1));
export const lot = z
  .nullable(z.string().check(z.minLength(1)))
  .check(z.describe('Lot number; null for items without lot tracking and for stock without a lot.'));
export const onHandQuantity = (description: string) => z.number().check(z.minimum(0)).check(z.describe(description));

/** The stock record a change touched, as `stock.changed` and a stock change's lines name it. */
export const stockPlaceFields = { stockRecordId, itemId, sku, locationId, locationCode, lot };

/** The full item (`item.created`, `item.updated`, `GET /v1/items/{id}`). */
export const itemRecordSchema = open(
  z.object({
    id: itemId,
    sku,
    name: z.string().check(z.minLength(1)),
    unit: z.string().check(z.minLength(1)).check(z.describe('Unit of measure, e.g. `ea`, `kg`, `l`.')),
    description: z.nullable(z.string()),
    category: z.nullable(z.string()),
    barcode: z.nullable(z.string()),
    reorderPoint: z.nullable(z.number().check(z.minimum(0))).check(z.describe('On-hand quantity below which `low-stock` is emitted; null: no reorder point.')),
    trackingMode: z.enum(TRACKING_MODES),
    status: z.optional(
      z
        .literal('archived')
        .check(z.describe('Present only on an archived item (docs/inventory.md "Writing the catalog"); an active item carries no `status`.')),
    ),
    createdAt: utcTimestamp('When the item was created.'),
    updatedAt: utcTimestamp('When the item was last changed.'),
  }),
).check(z.meta({ description: 'An item (full record).' }));

/** A location (`GET /v1/locations/{id}`); no event carries locations. */
export const locationRecordSchema = open(
  z.object({
    id: locationId,
    code: locationCode,
    name: z.string().check(z.minLength(1)),
    type: z.enum(LOCATION_TYPES),
    parentCode: z.nullable(locationCode).check(z.describe('Code of the enclosing location; null for a top-level location.')),
    createdAt: utcTimestamp('When the location was created.'),
    updatedAt: utcTimestamp('When the location was last changed.'),
  }),
).check(z.meta({ description: 'A location (warehouse, zone or bin).' }));

/** A stock record (`GET /v1/stock-records/{id}`); `stock.changed` carries the same fields. */
export const stockRecordSchema = open(
  z.object({
    id: stockRecordId,
    itemId,
    sku,
    locationId,
    locationCode,
    lot,
    quantity: onHandQuantity('On-hand quantity of the stock record.'),
    updatedAt: utcTimestamp('When the quantity last changed.'),
  }),
).check(z.meta({ description: 'The on-hand quantity of one item at one location in one lot.' }));

/** A movement as `movement.created` carries it. */
export const movementSchema = open(
  z.object({
    id: movementId,
    type: z.enum(MOVEMENT_TYPES),
    itemId,
    sku,
    fromLocationId: z.nullable(locationId).check(z.describe('Where the stock left; null when it entered the organization (receipt, production, increase).')),
    toLocationId: z.nullable(locationId).check(z.describe('Where the stock arrived; null when it left the organization (consumption, decrease).')),
    quantity: z.number().check(z.positive()).check(z.describe('Quantity moved, always positive; the direction is given by the locations.')),
    lot,
    reference: z
      .nullable(z.string().check(z.minLength(1)))
      .check(z.describe('Business reference: the adjustment or transfer reference, PO number, count reference or build reference.')),
  }),
);

/** A movement as the reads answer it (`GET /v1/movements/{id}`): the event's movement and the event's `occurredAt`. */
export const movementRecordSchema = open(
  z.object({ ...movementSchema.shape, occurredAt: utcTimestamp('Domain time of the movement (the `occurredAt` of its `movement.created`).') }),
).check(z.meta({ description: 'A stock movement (append-only ledger entry).' }));
