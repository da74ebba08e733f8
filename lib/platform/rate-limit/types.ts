/** Where a caller stands in one fixed rate-limit window (docs/api-guide.md "Rate limits"). */
export interface RateLimitWindowStatus {
  /** Policy name as shown in the RateLimit headers. */
  policy: 'general' | 'submission';
  limit: number;
  windowSeconds: number;
  remaining: number;
  /** Whole seconds until the window resets (≥ 1). */
  resetSeconds: number;
}
