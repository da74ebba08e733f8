import * as z from '../../platform/contracts/zod.ts';
import { STOCK_MAX_LENGTHS } from '../../stock/index.ts';
import { MAX_RESERVATION_LINES, RESERVATION_STATUSES } from '../domain/reservation.ts';
import { cursorParam, limitParam } from '../../platform/contracts/primitives.ts';
import { itemId, locationId, prefixedId, stockRecordId, utcTimestamp, utcTimestampSchema } from '../../inventory/index.ts';
import { exactlyOne, identifier, itemReference, locationReference, lotField, quantity } from '../../stock/index.ts';

/**
 * Reservations (docs/inventory.md "Reservations and available stock"): the request bodies and
 * query of the routes, and the reservation they answer with.
 */

const reservationLineInput = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...itemReference,
      ...locationReference,
      // Left out on an item tracked by lot: the oldest lots first, split across lots.
      lot: lotField,
      quantity: quantity('positive', 'Quantity to hold, greater than 0.'),
    })
    .check(
      exactlyOne([
        ['sku', 'itemId'],
        ['locationCode', 'locationId'],
      ]),
    ))();

export const createReservationBody = /* @__PURE__ */ (() =>
  z.strictObject({
    reference: identifier(STOCK_MAX_LENGTHS.reference, 'Your reference (an order id, say): unique among the organization’s reservations.'),
    expiresAt: z.optional(
      z.nullable(
        utcTimestampSchema.check(z.describe('When what is left is released (within a minute after). Default: 24 h after creation; at most 30 days ahead.')),
      ),
    ),
    lines: z
      .array(reservationLineInput)
      .check(z.minLength(1), z.maxLength(MAX_RESERVATION_LINES), z.describe(`1 to ${MAX_RESERVATION_LINES} lines, all held or none.`)),
  }))();

export const settleReservationBody = /* @__PURE__ */ (() =>
  z.optional(
    z.strictObject({
      lines: z.optional(
        z
          .array(
            z.strictObject({
              lineId: prefixedId('rsl', 'reservation line'),
              quantity: quantity('positive', 'How much of the line, at most what it has left.'),
            }),
          )
          .check(z.minLength(1), z.maxLength(100), z.describe('Lines and quantities; left out: everything every line has left.')),
      ),
    }),
  ))();

export const listReservationsQuery = /* @__PURE__ */ (() =>
  z.strictObject({
    reference: z.optional(z.string().check(z.minLength(1), z.maxLength(STOCK_MAX_LENGTHS.reference))),
    status: z.optional(z.enum(RESERVATION_STATUSES)),
    itemId: z.optional(itemId),
    limit: limitParam,
    cursor: cursorParam,
  }))();

const reservationLineSchema = z.object({
  lineId: prefixedId('rsl', 'reservation line'),
  itemId,
  sku: z.string(),
  locationId,
  locationCode: z.string(),
  lot: z.nullable(z.string()),
  stockRecordId,
  quantity: z.number().check(z.describe('Held at creation.')),
  fulfilledQuantity: z.number().check(z.describe('Shipped so far.')),
  releasedQuantity: z.number().check(z.describe('Released so far (by a release or the expiry).')),
});

export const reservationSchema = /* @__PURE__ */ (() =>
  z
    .object({
      id: prefixedId('res', 'reservation'),
      reference: z.string(),
      status: z.enum(RESERVATION_STATUSES),
      expiresAt: utcTimestamp('When what is left is released.'),
      createdAt: utcTimestamp('When it was created.'),
      updatedAt: utcTimestamp('When it last changed.'),
      lines: z.array(reservationLineSchema),
    })
    .check(z.meta({ description: 'A reservation: stock held at places until it is released, fulfilled or expires.' })))();

export const reservationsPageSchema = /* @__PURE__ */ (() =>
  z.object({ data: z.array(reservationSchema), page: z.object({ nextCursor: z.nullable(z.string()) }) }).check(z.meta({ id: 'ReservationsPage' })))();
