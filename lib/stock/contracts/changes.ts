import * as z from '../../platform/contracts/zod.ts';
import { IDENTIFIER_PATTERN, IDENTIFIER_RULE } from '../../platform/core/identifiers.ts';
import { ITEM_MAX_LENGTHS } from '../../inventory/index.ts';
import { LOCATION_MAX_LENGTHS } from '../../inventory/index.ts';
import { QUANTITY_SCALE } from '../../inventory/index.ts';
import { MAX_CHANGE_LINES, STOCK_CHANGE_KINDS } from '../domain/changes/change.ts';
import { MAX_ON_HAND, STOCK_MAX_LENGTHS } from '../domain/records.ts';
import { receivedAtTime } from '../domain/receipts.ts';
import { itemId, locationId, movementId, prefixedId, stockPlaceFields, utcTimestamp } from '../../inventory/index.ts';

/**
 * Stock writes over JSON (docs/inventory.md "Writing stock over JSON"): request bodies and the
 * stock change they answer with. Identifiers, lots and quantities follow the import kinds' rules.
 */

export const identifier = (maxLength: number, description: string) =>
  z.string().check(z.minLength(1), z.maxLength(maxLength), z.regex(IDENTIFIER_PATTERN, { message: IDENTIFIER_RULE }), z.describe(description));

/** At most `QUANTITY_SCALE` decimals, as the import kinds' number cells. */
const hasScale = (value: number) => Number(value.toFixed(QUANTITY_SCALE)) === value;
export const quantity = (rule: 'positive' | 'non-negative' | 'non-zero', description: string) =>
  z.number().check(
    z.refine((value) => (rule === 'positive' ? value > 0 : rule === 'non-negative' ? value >= 0 : value !== 0), {
      message: `Must be ${rule === 'positive' ? 'greater than 0' : rule === 'non-negative' ? '0 or greater' : 'different from 0'}.`,
    }),
    z.refine((value) => Math.abs(value) <= MAX_ON_HAND, { message: `Must be at most ${MAX_ON_HAND} in size.` }),
    z.refine(hasScale, { message: `At most ${QUANTITY_SCALE} decimals.` }),
    z.describe(description),
  );

export const itemReference = {
  sku: z.optional(identifier(ITEM_MAX_LENGTHS.sku, 'The item by sku; or give `itemId`.')),
  itemId: z.optional(itemId.check(z.describe('The item by id; or give `sku`.'))),
};
export const locationReference = {
  locationCode: z.optional(identifier(LOCATION_MAX_LENGTHS.code, 'The location by code; or give `locationId`.')),
  locationId: z.optional(locationId.check(z.describe('The location by id; or give `locationCode`.'))),
};
export const lotField = z.optional(z.nullable(identifier(STOCK_MAX_LENGTHS.lot, 'Lot; required for items tracked by lot, refused for others.')));
const expectedQuantity = z
  .nullable(quantity('non-negative', ''))
  .check(
    z.describe(
      'The on-hand the client last read of the line’s stock record (0 when it does not exist yet); the change commits only while the record holds exactly this. `null` opts the line out of the check.',
    ),
  );

/** Exactly one of each pair the line names. */
export function exactlyOne(pairs: Array<[string, string]>) {
  return z.superRefine((line: Record<string, unknown>, context) => {
    for (const [first, second] of pairs) {
      const given = [first, second].filter((name) => line[name] !== undefined);
      if (given.length === 1) continue;
      context.issues.push({
        code: 'custom',
        input: line,
        path: [second],
        message: given.length === 0 ? `Give ${first} or ${second}.` : `Give ${first} or ${second}, not both.`,
      });
    }
  });
}

export const adjustmentLineSchema = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...itemReference,
      ...locationReference,
      lot: lotField,
      quantityDelta: quantity('non-zero', 'Signed change of on-hand, not 0.'),
      expectedQuantity,
    })
    .check(
      exactlyOne([
        ['sku', 'itemId'],
        ['locationCode', 'locationId'],
      ]),
    ))();

export const adjustStockBody = /* @__PURE__ */ (() =>
  z.strictObject({
    reference: identifier(
      STOCK_MAX_LENGTHS.reference,
      'Your reference of the adjustment (an order id, say): with each line’s sku, location and lot, it is applied at most once, by any request or import.',
    ),
    reason: z.optional(z.nullable(z.string().check(z.minLength(1), z.maxLength(200), z.describe('Why; carried by `stock.changed`.')))),
    lines: z
      .array(adjustmentLineSchema)
      .check(z.minLength(1), z.maxLength(MAX_CHANGE_LINES), z.describe(`1 to ${MAX_CHANGE_LINES} lines, applied in order, all or none.`)),
  }))();

const transferLocations = {
  fromLocationCode: z.optional(identifier(LOCATION_MAX_LENGTHS.code, 'The source location by code; or give `fromLocationId`.')),
  fromLocationId: z.optional(locationId.check(z.describe('The source location by id; or give `fromLocationCode`.'))),
  toLocationCode: z.optional(identifier(LOCATION_MAX_LENGTHS.code, 'The destination location by code; or give `toLocationId`.')),
  toLocationId: z.optional(locationId.check(z.describe('The destination location by id; or give `toLocationCode`.'))),
};

export const transferLineSchema = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...itemReference,
      ...transferLocations,
      lot: lotField,
      quantity: quantity('positive', 'Quantity moved from the source to the destination, greater than 0.'),
      expectedQuantity: expectedQuantity.check(
        z.describe('The on-hand the client last read of the source record (0 when it does not exist yet); `null` opts the line out of the check.'),
      ),
    })
    .check(
      exactlyOne([
        ['sku', 'itemId'],
        ['fromLocationCode', 'fromLocationId'],
        ['toLocationCode', 'toLocationId'],
      ]),
    ))();

export const transferStockBody = /* @__PURE__ */ (() =>
  z.strictObject({
    reference: identifier(
      STOCK_MAX_LENGTHS.reference,
      'Your reference of the transfer: with each line’s sku and lot, it is applied at most once, by any request or import.',
    ),
    lines: z
      .array(transferLineSchema)
      .check(z.minLength(1), z.maxLength(MAX_CHANGE_LINES), z.describe(`1 to ${MAX_CHANGE_LINES} lines, applied in order, all or none.`)),
  }))();

export const countLineSchema = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...itemReference,
      lot: lotField,
      countedQuantity: quantity('non-negative', 'What was counted: the on-hand the record is set to; the variance becomes a `count` movement.'),
      expectedQuantity,
    })
    .check(exactlyOne([['sku', 'itemId']])))();

export const countStockBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      countReference: identifier(
        STOCK_MAX_LENGTHS.reference,
        'Your reference of the count: with each line’s sku and lot, it is applied at most once, by any request or import.',
      ),
      ...locationReference,
      lines: z
        .array(countLineSchema)
        .check(z.minLength(1), z.maxLength(MAX_CHANGE_LINES), z.describe(`1 to ${MAX_CHANGE_LINES} lines, applied in order, all or none.`)),
    })
    .check(exactlyOne([['locationCode', 'locationId']])))();

export const receiptLineSchema = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...itemReference,
      ...locationReference,
      lot: lotField,
      quantity: quantity('positive', 'Quantity received, greater than 0.'),
      expectedQuantity: z.optional(
        expectedQuantity.check(
          z.describe('Optional here: the on-hand the client last read of the record (0 when it does not exist yet); absent or `null`: not checked.'),
        ),
      ),
    })
    .check(
      exactlyOne([
        ['sku', 'itemId'],
        ['locationCode', 'locationId'],
      ]),
    ))();

export const receiveStockBody = /* @__PURE__ */ (() =>
  z.strictObject({
    poNumber: identifier(
      STOCK_MAX_LENGTHS.reference,
      'The purchase order received: with each line’s sku, location and lot, it is applied at most once, by any request or import.',
    ),
    receivedAt: z.optional(
      z.nullable(
        z.string().check(
          z.refine((value) => receivedAtTime(value).ok, {
            message: 'Must be a date-time such as 2026-11-22T09:30:00Z (Z or an offset), from 1970 on, not in the future.',
          }),
          z.describe('When the goods arrived: the movements’ occurredAt, in UTC to the millisecond. Default: when the change commits.'),
        ),
      ),
    ),
    lines: z
      .array(receiptLineSchema)
      .check(z.minLength(1), z.maxLength(MAX_CHANGE_LINES), z.describe(`1 to ${MAX_CHANGE_LINES} lines, applied in order, all or none.`)),
  }))();

const changeLineSchema = z.object({
  line: z.number().check(z.int(), z.minimum(0), z.describe('The request line, 0-based.')),
  movementId: z.nullable(movementId),
  ...stockPlaceFields,
  previousQuantity: z.number(),
  quantity: z.number(),
  delta: z.number(),
  reserved: z.number().check(z.describe('Held by reservations.')),
  available: z.number().check(z.describe('`quantity - reserved`.')),
});

export const stockChangeSchema = /* @__PURE__ */ (() =>
  z
    .object({
      id: prefixedId('chg', 'stock change'),
      kind: z.enum(STOCK_CHANGE_KINDS),
      reference: z.string(),
      reason: z.nullable(z.string()),
      occurredAt: utcTimestamp('When the change committed.'),
      lines: z.array(changeLineSchema),
    })
    .check(z.meta({ description: 'A stock change: the stock records it changed, line by line.' })))();
