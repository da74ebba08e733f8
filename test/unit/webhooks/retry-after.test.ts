import { describe, expect, it } from 'vitest';
import { retryAfterSeconds } from '../../../lib/webhooks/domain/retry-after.ts';

const now = new Date('2026-11-26T12:00:00.000Z');

describe('retryAfterSeconds', () => {
  it.each([429, 502, 504])('reads delay-seconds on %i', (status) => {
    expect(retryAfterSeconds(status, '120', now)).toBe(120);
    expect(retryAfterSeconds(status, ' 0 ', now)).toBe(0);
  });

  it('reads an HTTP date as the seconds until it, rounded up, and a past date as 0', () => {
    expect(retryAfterSeconds(429, 'Thu, 26 Nov 2026 12:05:00 GMT', now)).toBe(300);
    expect(retryAfterSeconds(504, 'Thursday, 26-Nov-26 12:00:01 GMT', now)).toBe(1);
    expect(retryAfterSeconds(502, 'Thu, 26 Nov 2026 11:00:00 GMT', now)).toBe(0);
  });

  it.each(['soon', '-5', '1.5', '1e3', '', '2026-11-26T12:05:00Z'])('ignores the unusable value %j', (header) => {
    expect(retryAfterSeconds(429, header, now)).toBeNull();
  });

  it.each([200, 410, 500, 503])('ignores the header on %i', (status) => {
    expect(retryAfterSeconds(status, '120', now)).toBeNull();
  });

  it('is null without the header', () => {
    expect(retryAfterSeconds(429, undefined, now)).toBeNull();
  });
});
