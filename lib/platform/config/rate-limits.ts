import type { RateLimitPolicies } from '../rate-limit/fixed-window.ts';
import { positiveIntEnv } from './env.ts';

/**
 * Rate limits of this deployment (docs/api-guide.md "Rate limits"), read once at cold start. The CDK
 * function construct sets both variables per stage (context `generalRateLimit` /
 * `submissionRateLimit`); without them the defaults apply (1200 general, 20 submission requests per 60 s).
 */

export const RATE_LIMIT_ENV = {
  general: 'RATE_LIMIT_GENERAL_PER_MINUTE',
  submission: 'RATE_LIMIT_SUBMISSION_PER_MINUTE',
  /** The largest general lease block; unset in the stack (the default). */
  leaseBlockMax: 'RATE_LIMIT_LEASE_BLOCK_MAX',
} as const;

export const DEFAULT_GENERAL_PER_MINUTE = 1200;
export const DEFAULT_SUBMISSION_PER_MINUTE = 20;
export const RATE_LIMIT_WINDOW_SECONDS = 60;
/**
 * Most general tokens one container leases at once: a lease write per 50 requests of a busy key,
 * and at most 49 requests refused early per other container holding a block. The submission limit
 * leases one token per request, so it stays exact. `RATE_LIMIT_LEASE_BLOCK_MAX` overrides it; 1
 * is the old behaviour (one counter write per request, an exact general limit), which the bench
 * measures as the baseline of the leases (docs/performance.md).
 */
export const GENERAL_LEASE_BLOCK_MAX = 50;

/** Throws (failing the cold start) when a variable is set but not a positive integer. */
export function loadRateLimitConfig(): RateLimitPolicies {
  return {
    general: {
      name: 'general',
      limit: positiveIntEnv(RATE_LIMIT_ENV.general, DEFAULT_GENERAL_PER_MINUTE),
      windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
      leaseBlockMax: positiveIntEnv(RATE_LIMIT_ENV.leaseBlockMax, GENERAL_LEASE_BLOCK_MAX),
    },
    submission: {
      name: 'submission',
      limit: positiveIntEnv(RATE_LIMIT_ENV.submission, DEFAULT_SUBMISSION_PER_MINUTE),
      windowSeconds: RATE_LIMIT_WINDOW_SECONDS,
    },
  };
}
