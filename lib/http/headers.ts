import type { HttpEvent } from './types.ts';

/** Headers on every response (PRODUCT §1 Media types), unless a route overrides them. */
export function baseHeaders(traceId: string): Record<string, string> {
  return {
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
    'X-Trace-Id': traceId,
  };
}

/** API Gateway lower-cases header names in v2 events; the local adapter does the same. */
export function header(event: HttpEvent, name: string): string | undefined {
  return event.headers?.[name.toLowerCase()];
}
