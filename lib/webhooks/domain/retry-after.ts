/**
 * A receiver's `Retry-After` (RFC 9110 §10.2.3) on the statuses where it asks for a pause: 429
 * (rate limited), 502 and 504 (its gateway could not reach it). It is a lower bound on the next
 * wait (lib/webhooks/domain/retry-schedule.ts); on any other status it is ignored.
 */

const STATUSES_WITH_RETRY_AFTER = new Set([429, 502, 504]);

/** Whole seconds to wait, or null when there is no usable header or the status does not carry one. */
export function retryAfterSeconds(status: number, header: string | undefined, now: Date): number | null {
  if (!STATUSES_WITH_RETRY_AFTER.has(status) || header === undefined) return null;
  const value = header.trim();
  if (/^[0-9]+$/u.test(value)) return Number(value);
  // An HTTP date; Date.parse accepts the IMF-fixdate form and the two obsolete ones.
  if (!/^[A-Za-z]{3,9}, /u.test(value)) return null;
  const at = Date.parse(value);
  if (Number.isNaN(at)) return null;
  return Math.max(0, Math.ceil((at - now.getTime()) / 1000));
}
