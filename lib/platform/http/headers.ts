import type { RateLimitWindowStatus } from '../rate-limit/types.ts';
import type { HttpEvent } from './types.ts';

/** What response headers are derived from; a subset of the request state. */
export interface HeaderState {
  traceId: string;
  rateLimit?: readonly RateLimitWindowStatus[];
  /** The route's policies, known before the caller is: what a 401/403 can still announce. */
  rateLimitPolicy?: readonly Pick<RateLimitWindowStatus, 'policy' | 'limit' | 'windowSeconds'>[];
}

/**
 * RateLimit-Policy / RateLimit as structured fields (IETF httpapi ratelimit-headers draft):
 * `RateLimit-Policy: "general";q=1200;w=60` and `RateLimit: "general";r=17;t=42`.
 */
export function rateLimitHeaders(windows: readonly RateLimitWindowStatus[]): Record<string, string> {
  if (windows.length === 0) return {};
  return {
    ...policyHeader(windows),
    RateLimit: windows.map((w) => `"${w.policy}";r=${w.remaining};t=${w.resetSeconds}`).join(', '),
  };
}

function policyHeader(policies: NonNullable<HeaderState['rateLimitPolicy']>): Record<string, string> {
  if (policies.length === 0) return {};
  return { 'RateLimit-Policy': policies.map((w) => `"${w.policy}";q=${w.limit};w=${w.windowSeconds}`).join(', ') };
}

/**
 * Headers on every response, success or problem (docs/api-guide.md "Media types", "Rate limits"). Built
 * here only, because Middy skips `after` phases on early responses such as idempotent replays.
 */
export function baseHeaders(state: HeaderState): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'X-Trace-Id': state.traceId,
    ...(state.rateLimit ? rateLimitHeaders(state.rateLimit) : policyHeader(state.rateLimitPolicy ?? [])),
  };
}

/** API Gateway lower-cases header names in v2 events; the local adapter does the same. */
export function header(event: HttpEvent, name: string): string | undefined {
  return event.headers?.[name.toLowerCase()];
}
