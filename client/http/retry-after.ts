/**
 * `Retry-After` in milliseconds: the API sends whole seconds (docs/api-guide.md "Rate limits");
 * an HTTP date, as a proxy may send, is read too. Undefined when absent or unreadable.
 */
export function retryAfterMs(response: Response, now: () => number = Date.now): number | undefined {
  const value = response.headers.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  // An HTTP date names its weekday and month; Date.parse would also take "-1" for a year.
  const date = /^[A-Za-z]{3}, /.test(value) ? Date.parse(value) : NaN;
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
