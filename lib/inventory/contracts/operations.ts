import * as z from '../../platform/contracts/zod.ts';
import { MOVEMENT_TYPES } from '../domain/stock.ts';
import { defineOperation } from '../../platform/contracts/operation.ts';
import { booleanString, cursorParam, dateTimeString, idParam, limitParam } from '../../platform/contracts/primitives.ts';

/**
 * The request contracts of the inventory reads (docs/inventory.md "Reading inventory"). Each
 * handler imports its own; the schemas are built in `@__PURE__` calls so a function bundles
 * only what its contract uses (lib/platform/contracts/zod.ts).
 */

const recordPath = /* @__PURE__ */ (() => z.strictObject({ id: idParam }))();
/** A natural key or lot as stored: non-empty, at most 200 characters (longer never matches). */
const exactText = (description: string) =>
  /* @__PURE__ */ (() => z.optional(z.string().check(z.minLength(1), z.maxLength(200))).check(z.meta({ description })))();

export const listItemsContract = defineOperation({
  operationId: 'listItems',
  request: {
    query: z.strictObject({
      sku: exactText('Exactly this sku (case-sensitive).'),
      q: exactText('Case-insensitive substring of the sku or the name; a page examines at most 1000 items.'),
      includeArchived: z.optional(booleanString).check(z.meta({ description: '`true`: archived items too (left out by default).' })),
      limit: limitParam,
      cursor: cursorParam,
    }),
  },
});

export const getItemContract = defineOperation({ operationId: 'getItem', request: { path: recordPath } });

/** Built in a `@__PURE__` call: the other inventory reads' functions leave it out. */
export const getItemAvailabilityContract = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getItemAvailability',
    request: {
      path: recordPath,
      query: z.strictObject({
        afterLocationId: z
          .optional(idParam)
          .check(z.meta({ description: 'Only the locations after this one (by location id): the `nextAfterLocationId` of a truncated response.' })),
      }),
    },
  }))();

export const listLocationsContract = defineOperation({
  operationId: 'listLocations',
  request: {
    query: z.strictObject({
      code: exactText('Exactly this location code (case-sensitive).'),
      parentId: z
        .optional(idParam)
        .check(z.meta({ description: 'The children of this location; a page examines at most 1000 locations. An id of no location of yours lists nothing.' })),
      includeArchived: z.optional(booleanString).check(z.meta({ description: '`true`: archived locations too (left out by default).' })),
      limit: limitParam,
      cursor: cursorParam,
    }),
  },
});

export const getLocationContract = defineOperation({ operationId: 'getLocation', request: { path: recordPath } });

export const listStockRecordsContract = defineOperation({
  operationId: 'listStockRecords',
  request: {
    query: z.strictObject({
      itemId: z.optional(idParam),
      locationId: z.optional(idParam),
      lot: exactText('Exactly this lot.'),
      nonZero: z.optional(booleanString).check(z.meta({ description: '`true`: only records with stock on hand.' })),
      limit: limitParam,
      cursor: cursorParam,
    }),
  },
});

export const getStockRecordContract = defineOperation({ operationId: 'getStockRecord', request: { path: recordPath } });

export const listMovementsContract = defineOperation({
  operationId: 'listMovements',
  request: {
    query: z.strictObject({
      itemId: z.optional(idParam),
      locationId: z.optional(idParam).check(z.meta({ description: 'Movements from or to this location.' })),
      type: z.optional(z.enum(MOVEMENT_TYPES)),
      fromUtc: z.optional(dateTimeString).check(z.meta({ description: 'Movements at or after this time.' })),
      toUtc: z.optional(dateTimeString).check(z.meta({ description: 'Movements before this time.' })),
      limit: limitParam,
      cursor: cursorParam,
    }),
  },
});

export const getMovementContract = defineOperation({ operationId: 'getMovement', request: { path: recordPath } });
