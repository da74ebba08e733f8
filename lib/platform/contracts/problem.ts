import * as z from './zod.ts';

/** RFC 9457 problem document with the stable `code` and `traceId` (docs/api-guide.md "Errors: problem documents"). */
export const fieldErrorSchema = z.object({
  location: z.enum(['query', 'path', 'header', 'body', 'form']),
  name: z.optional(z.string()),
  pointer: z.optional(z.string()),
  code: z.string(),
  message: z.string(),
});

/** A line a stock change's or a reservation's refusal names (docs/inventory.md "Writing stock over JSON", "Reservations and available stock"); the members present depend on the code. */
export const stockProblemLineSchema = z.object({
  line: z.optional(z.number().check(z.int(), z.minimum(0))),
  lineId: z.optional(z.string()),
  left: z.optional(z.number()),
  stockRecordId: z.optional(z.nullable(z.string())),
  expectedQuantity: z.optional(z.number()),
  currentQuantity: z.optional(z.number()),
  available: z.optional(z.number()),
  requested: z.optional(z.number()),
  appliedBy: z.optional(z.string()),
});

export const problemSchema = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().check(z.int(), z.minimum(400), z.maximum(599)),
    detail: z.optional(z.string()),
    instance: z.string(),
    // `customer-api.<area>.<condition>`; `customer-api.precondition-failed` (412) belongs to no area.
    code: z.string().check(z.regex(/^customer-api\.[a-z0-9-]+(\.[a-z0-9-]+)?$/)),
    traceId: z.string().check(z.minLength(1)),
    errors: z.optional(z.array(fieldErrorSchema)),
    requiredScope: z.optional(z.string()),
    version: z.optional(
      z.number().check(z.int(), z.minimum(1), z.describe('`customer-api.precondition-failed`: the record\'s current version (its ETag is `"<version>"`).')),
    ),
    itemId: z.optional(z.string().check(z.describe('`customer-api.inventory.sku-taken`: the item that holds the sku.'))),
    locationId: z.optional(z.string().check(z.describe('`customer-api.inventory.code-taken`: the location that holds the code.'))),
    onHand: z.optional(z.number().check(z.describe('`customer-api.inventory.tracking-change-with-stock`: what the item holds on hand.'))),
    lines: z.optional(z.array(stockProblemLineSchema)),
    reservationId: z.optional(z.nullable(z.string())),
    reservationStatus: z.optional(z.string()),
    buildReference: z.optional(z.string()),
    buildId: z.optional(z.nullable(z.string())),
    storedLines: z.optional(
      z.number().check(z.int(), z.minimum(0), z.describe('`customer-api.reservations.too-large`: the lots (stored lines) the reservation would hold.')),
    ),
  })
  .check(z.meta({ id: 'ProblemDetails' }));

export type ProblemDocument = z.infer<typeof problemSchema>;
