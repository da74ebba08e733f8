import { describe, expect, it } from 'vitest';
import type { RateLimitWindowStatus } from '../../../lib/platform/rate-limit/types.ts';
import { baseHeaders, rateLimitHeaders } from '../../../lib/platform/http/headers.ts';

const GENERAL: RateLimitWindowStatus = { policy: 'general', limit: 1200, windowSeconds: 60, remaining: 17, resetSeconds: 42 };
const SUBMISSION: RateLimitWindowStatus = { policy: 'submission', limit: 20, windowSeconds: 60, remaining: 0, resetSeconds: 42 };

describe('rateLimitHeaders', () => {
  it.each([
    ['no windows (no key identified)', [], {}],
    ['the general window', [GENERAL], { 'RateLimit-Policy': '"general";q=1200;w=60', RateLimit: '"general";r=17;t=42' }],
    [
      'general and submission windows (submission routes)',
      [GENERAL, SUBMISSION],
      {
        'RateLimit-Policy': '"general";q=1200;w=60, "submission";q=20;w=60',
        RateLimit: '"general";r=17;t=42, "submission";r=0;t=42',
      },
    ],
  ] as const)('formats %s', (_label, windows, expected) => {
    expect(rateLimitHeaders(windows)).toEqual(expected);
  });
});

describe('baseHeaders', () => {
  it('adds the RateLimit headers when the request state has windows', () => {
    expect(baseHeaders({ traceId: 't-1', rateLimit: [GENERAL] })).toMatchObject({ 'X-Trace-Id': 't-1', RateLimit: '"general";r=17;t=42' });
  });

  it('has no RateLimit headers without windows', () => {
    const headers = baseHeaders({ traceId: 't-1' });
    expect(Object.keys(headers)).not.toContain('RateLimit');
    expect(Object.keys(headers)).not.toContain('RateLimit-Policy');
  });
});
