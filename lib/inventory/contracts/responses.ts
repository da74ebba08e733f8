import * as z from '../../platform/contracts/zod.ts';
import {
  itemId,
  itemRecordSchema,
  locationCode,
  locationId,
  locationRecordSchema,
  lot,
  movementRecordSchema,
  onHandQuantity,
  open,
  sku,
  stockRecordId,
  stockRecordSchema,
} from './records.ts';
import { RECORD_STATUSES } from '../domain/item.ts';

/**
 * The success bodies of the inventory reads, for OpenAPI and the tests
 * (lib/app/operations.ts); no function imports them. The records are the schemas the
 * events share (records.ts), published under their own names; the reads add the three quantity
 * states to items (totals) and stock records (docs/inventory.md "Reading inventory"), which the
 * events of those records do not carry.
 */

/** `onHand`, `reserved` and `available` of a stock record, a location or an item (`what`). */
const quantityStates = (what: string) => ({
  onHand: onHandQuantity(`On-hand quantity ${what}.`),
  reserved: z
    .number()
    .check(z.minimum(0))
    .check(z.describe(`Reserved quantity ${what}: held by active reservations; 0 until reservations are written.`)),
  available: z
    .number()
    .check(z.describe(`\`onHand\` − \`reserved\` ${what}: what can still be promised. Negative only after a count set on-hand below what is reserved.`)),
});

/** `status` and `version` of an item or a location (docs/inventory.md "Writing the catalog"). */
const catalogState = (what: string) => ({
  status: z
    .enum(RECORD_STATUSES)
    .check(z.describe(`\`archived\`: the ${what} refuses stock in and is left out of its list unless \`includeArchived=true\`; still readable by id.`)),
  version: z
    .int()
    .check(z.minimum(1))
    .check(z.describe(`+1 per change of the ${what}; \`ETag\` is \`"<version>"\`, which \`If-Match\` names on a PATCH.`)),
});

export const itemSchema = open(
  z.object({
    ...itemRecordSchema.shape,
    ...catalogState('item'),
    ...quantityStates('of the item across all its locations'),
  }),
).check(z.meta({ id: 'Item', description: 'An item (full record) with its totals across all its stock records.' }));
export const locationSchema = open(z.object({ ...locationRecordSchema.shape, ...catalogState('location') })).check(
  z.meta({ id: 'Location', description: 'A location (warehouse, zone or bin).' }),
);
export const stockRecordResponseSchema = open(
  z.object({
    ...stockRecordSchema.shape,
    quantity: onHandQuantity('On-hand quantity of the stock record: the same as `onHand`, kept as its alias.'),
    ...quantityStates('of the stock record'),
  }),
).check(z.meta({ id: 'StockRecord', description: 'The quantities of one item at one location in one lot.' }));
export const movementResponseSchema = movementRecordSchema.check(z.meta({ id: 'Movement' }));

const page = { page: z.object({ nextCursor: z.nullable(z.string()) }) };

export const itemsPageSchema = z.object({ data: z.array(itemSchema), ...page }).check(z.meta({ id: 'ItemsPage' }));
export const locationsPageSchema = z.object({ data: z.array(locationSchema), ...page }).check(z.meta({ id: 'LocationsPage' }));
export const stockRecordsPageSchema = z.object({ data: z.array(stockRecordResponseSchema), ...page }).check(z.meta({ id: 'StockRecordsPage' }));
export const movementsPageSchema = z.object({ data: z.array(movementResponseSchema), ...page }).check(z.meta({ id: 'MovementsPage' }));

const lotAvailabilitySchema = open(
  z.object({
    lot,
    stockRecordId,
    ...quantityStates('of the stock record'),
  }),
).check(
  z.meta({ id: 'LotAvailability', description: 'One stock record of the item at the location: its lot (null for stock without a lot) and its quantities.' }),
);

const locationAvailabilitySchema = open(
  z.object({
    locationId,
    locationCode,
    ...quantityStates('of the item at the location (the sums of its lots)'),
    lotsTruncated: z
      .boolean()
      .check(
        z.describe(
          'True only for a location holding more stock records of the item than one response reads (1000): `lots` lists its first 1000 and the sums cover only those; read all of them with `GET /v1/stock-records?itemId=…&locationId=…`.',
        ),
      ),
    lots: z
      .array(lotAvailabilitySchema)
      .check(
        z.describe(
          'Every stock record of the item at the location, by lot (stock without a lot, null, first); an item not tracked by lot has one, with lot null.',
        ),
      ),
  }),
).check(z.meta({ id: 'LocationAvailability' }));

export const itemAvailabilitySchema = open(
  z.object({
    itemId,
    sku,
    ...quantityStates('of the item across all its locations'),
    locations: z
      .array(locationAvailabilitySchema)
      .check(z.describe('Each location where the item has a stock record (also at 0), by location id; each whole, with all its lots.')),
    truncated: z
      .boolean()
      .check(z.describe('The item has stock records in locations after the last one listed: ask again with `afterLocationId` set to `nextAfterLocationId`.')),
    nextAfterLocationId: z.nullable(locationId).check(z.describe('Where the next response starts when `truncated`; null otherwise.')),
  }),
).check(
  z.meta({
    id: 'ItemAvailability',
    description:
      "An item's quantities: its totals (always all of its stock, whatever `truncated` says), and by location and lot. At most 1000 stock records per response, whole locations only.",
  }),
);
