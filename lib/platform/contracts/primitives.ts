import * as z from './zod.ts';

/**
 * Wire primitives that follow the number rules of docs/api-guide.md "Query parameters" exactly.
 * Query and form values always arrive as strings, so every schema here parses a string; JSON
 * bodies use the `json*` variants. Each is built in a `@__PURE__` call so that a function bundles
 * only the ones it uses (lib/platform/contracts/zod.ts).
 */

const INT32_MIN = -2_147_483_648;
const INT32_MAX = 2_147_483_647;
const INTEGER_PATTERN = /^-?(0|[1-9][0-9]*)$/;
/** A decimal without exponent, sign only in front, no leading zeros in the integer part. */
const DECIMAL_PATTERN = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?$/;

export const int32String = /* @__PURE__ */ (() =>
  z
    .pipe(
      z.string().check(z.regex(INTEGER_PATTERN, { message: 'Must be an integer written as digits, with an optional leading minus and no leading zeros.' })),
      z.transform(Number),
    )
    .check(z.refine((value: number) => value >= INT32_MIN && value <= INT32_MAX, { message: 'Must be a 32-bit signed integer.' })))();

export const doubleString = /* @__PURE__ */ (() =>
  z
    .pipe(
      z.string().check(z.regex(DECIMAL_PATTERN, { message: 'Must be a decimal number such as 12 or 12.5 (no exponent, no leading zeros).' })),
      z.transform(Number),
    )
    .check(z.refine((value: number) => Number.isFinite(value), { message: 'Must be a finite number.' })))();

export const booleanString = /* @__PURE__ */ (() =>
  z.pipe(
    z.enum(['true', 'false'], { message: "Must be 'true' or 'false'." }),
    z.transform((value: 'true' | 'false') => value === 'true'),
  ))();

/** The instants a stored timestamp can name: years 0001–9999 UTC (what `toISOString` writes with four digits). */
const EARLIEST_INSTANT_MS = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_INSTANT_MS = Date.parse('9999-12-31T23:59:59.999Z');

/**
 * An ISO 8601 date-time with an offset whose UTC instant is within years 0001–9999: an offset can
 * carry a valid local time across the edge (`9999-12-31T23:00:00-01:00` is in year 10000 UTC),
 * where it would no longer compare correctly with stored times.
 */
export const dateTimeString = /* @__PURE__ */ (() =>
  z.iso.datetime({ offset: true, message: 'Must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z.' }).check(
    z.refine(
      (value: string) => {
        // Digits past the millisecond round the bound up (stored times have milliseconds), so they count.
        const beyondMilliseconds = /\.\d{3}(\d*)/.exec(value)?.[1] ?? '';
        const instant = Date.parse(value) + (/[1-9]/.test(beyondMilliseconds) ? 1 : 0);
        return instant >= EARLIEST_INSTANT_MS && instant <= LATEST_INSTANT_MS;
      },
      { message: 'Must be between 0001-01-01T00:00:00Z and 9999-12-31T23:59:59.999Z in UTC.' },
    ),
  ))();

/** `limit` on every list endpoint: 1..200, default 50 (docs/api-guide.md "Lists and cursors"). */
export const LIST_LIMIT_DEFAULT = 50;
export const LIST_LIMIT_MAX = 200;
export const limitParam = /* @__PURE__ */ (() =>
  z._default(
    z.optional(
      z.pipe(
        int32String,
        z
          .number()
          .check(z.int(), z.minimum(1, { message: 'Must be at least 1.' }), z.maximum(LIST_LIMIT_MAX, { message: `Must be at most ${LIST_LIMIT_MAX}.` })),
      ),
    ),
    LIST_LIMIT_DEFAULT,
  ))();

export const cursorParam = /* @__PURE__ */ (() => z.optional(z.string().check(z.minLength(1), z.maxLength(2048))))();

/** Opaque id path parameter: type-prefixed, short, URL-safe. */
export const idParam = /* @__PURE__ */ (() => z.string().check(z.regex(/^[a-z]{2,4}_[0-9A-Za-z]{10,40}$/, { message: 'Not a valid id.' })))();
