import { afterEach, describe, expect, it, vi } from 'vitest';
import { loadRateLimitConfig, RATE_LIMIT_ENV } from '../../../lib/platform/config/rate-limits.ts';

describe('loadRateLimitConfig', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
  });

  it('defaults to the documented limits (docs/api-guide.md): 1200 general (leased up to 50 at a time) and 20 submissions per 60 s (exact)', () => {
    // Prepare
    vi.stubEnv(RATE_LIMIT_ENV.general, '');
    vi.stubEnv(RATE_LIMIT_ENV.submission, '');
    vi.stubEnv(RATE_LIMIT_ENV.leaseBlockMax, '');
    // Act
    const config = loadRateLimitConfig();
    // Assess
    expect(config).toEqual({
      general: { name: 'general', limit: 1200, windowSeconds: 60, leaseBlockMax: 50 },
      submission: { name: 'submission', limit: 20, windowSeconds: 60 },
    });
  });

  it('takes the per-stage values the CDK construct sets', () => {
    // Prepare
    vi.stubEnv(RATE_LIMIT_ENV.general, '5000');
    vi.stubEnv(RATE_LIMIT_ENV.submission, '50');
    // Act
    const config = loadRateLimitConfig();
    // Assess
    expect(config.general.limit).toBe(5000);
    expect(config.submission.limit).toBe(50);
  });

  it('takes a largest lease block (1: a counter write per request, the general limit exact)', () => {
    // Prepare
    vi.stubEnv(RATE_LIMIT_ENV.leaseBlockMax, '1');
    // Act
    const config = loadRateLimitConfig();
    // Assess
    expect(config.general.leaseBlockMax).toBe(1);
    expect(config.submission).not.toHaveProperty('leaseBlockMax');
  });

  it.each(['0', '-1', '12.5', 'many', '1e3'])('fails the cold start for %j', (value) => {
    vi.stubEnv(RATE_LIMIT_ENV.general, value);
    expect(() => loadRateLimitConfig()).toThrow(RATE_LIMIT_ENV.general);
    vi.unstubAllEnvs();
    vi.stubEnv(RATE_LIMIT_ENV.leaseBlockMax, value);
    expect(() => loadRateLimitConfig()).toThrow(RATE_LIMIT_ENV.leaseBlockMax);
  });
});
