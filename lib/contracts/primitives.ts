import * as z from 'zod';

/**
 * Wire primitives that follow the number rules of docs/api-guide.md "Query parameters" exactly.
 * Query and form values always arrive as strings, so every schema here parses a string; JSON
 * bodies use the `json*` variants.
 */

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const INTEGER_PATTERN = /^-?(0|[1-9][0-9]*)$/;
/** A decimal without exponent, sign only in front, no leading zeros in the integer part. */
const DECIMAL_PATTERN = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export const int32String = z
  .string()
  .regex(INTEGER_PATTERN, { message: 'Must be an integer written as digits, with an optional leading minus and no leading zeros.' })
  .transform(Number)
  .refine((value) => value >= INT32_MIN && value <= INT32_MAX, { message: 'Must be a 32-bit signed integer.' });

export const doubleString = z
  .string()
  .regex(DECIMAL_PATTERN, { message: 'Must be a decimal number such as 12 or 12.5 (no exponent, no leading zeros).' })
  .transform(Number)
  .refine((value) => Number.isFinite(value), { message: 'Must be a finite number.' });

export const booleanString = z.enum(['true', 'false'], { message: "Must be 'true' or 'false'." }).transform((value) => value === 'true');

/** The instants a stored timestamp can name: years 0001–9999 UTC (what `toISOString` writes with four digits). */
const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 date-time with an offset whose UTC instant is within years 0001–9999: an offset can
 * carry a valid local time across the edge (`9999-12-31T23:00:00-01:00` is in year 10000 UTC),
 * where it would no longer compare correctly with stored times.
 */
export const dateTimeString = z.iso
  .datetime({ offset: true, message: 'Must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z.' })
  .refine(
    (value) => {
      // Digits past the millisecond round the bound up (stored times have milliseconds), so they count.
      const beyondMilliseconds = /\.\d{3}(\d*)/.exec(value)?.[1] ?? '';
      const instant = Date.parse(value) + (/[1-9]/.test(beyondMilliseconds) ? 1 : 0);
      return instant >= EARLIEST_INSTANT_MS && instant <= LATEST_INSTANT_MS;
    },
    { message: 'Must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in UTC.' },
  );

/** `limit` on every list endpoint: 1..200, default 50 (docs/api-guide.md "Lists and cursors"). */
export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 200;
export const limitParam = int32String
  .pipe(z.number().int().min(1, { message: 'Must be at least 1.' }).max(LIST_LIMIT_MAX, { message: `Must be at most ${LIST_LIMIT_MAX}.` }))
  .optional()
  .default(LIST_LIMIT_DEFAULT);

export const cursorParam = z.string().min(1).max(2048).optional();

/** Opaque id path parameter: type-prefixed, short, URL-safe. */
export const idParam = z.string().regex(/^[a-z]{2,4}_[0-9A-Za-z]{10,40}$/, { message: 'Not a valid id.' });
